import type { Source } from '../domain/source.js';
import type { SourceWarning } from '../domain/source-health.js';

export interface NewSource {
  location: string;
  country: string;
  everyMs: number;
  assumeOffsetMinutes: number;
}

/** What a finished refresh writes back. */
export type SourceRefreshState = Pick<
  Source,
  | 'nextRunAt'
  | 'failures'
  | 'lastSuccessAt'
  | 'lastIngestAt'
  | 'lastStatus'
  | 'lastOutcome'
  | 'lastError'
  | 'etag'
  | 'lastModified'
  | 'contentSha256'
  | 'sourceFileId'
  | 'channels'
  | 'programmes'
  | 'latestEndMs'
>;

export interface SourceClaim {
  holder: string;
  nowMs: number;
  leaseMs: number;
  /** Claim only if the source is due (a scheduled run); a forced refresh claims any time. */
  onlyIfDue: boolean;
}

/**
 * Guide sources and their refresh leases. A claim is one atomic update, so of any number of
 * processes or instances over one database exactly one refreshes a given source at a time.
 */
export interface SourceStore {
  /** Adds a source due at once; DuplicateSourceError when the location is already a source. */
  addSource(source: NewSource, nowMs: number): Promise<Source>;
  findSource(id: string): Promise<Source | null>;
  /** Every source, oldest first. */
  listSources(): Promise<Source[]>;
  /** Removes a source (not what it ingested); false when there is no such source. */
  removeSource(id: string): Promise<boolean>;
  /**
   * Takes the source's lease when it is free (and, with `onlyIfDue`, the source due), marking
   * the attempt; returns the source as claimed, or null when another holder has it (or it is
   * not due, or gone).
   */
  claimSource(id: string, claim: SourceClaim): Promise<Source | null>;
  /** Extends a lease still held by `holder`; false when it was lost. */
  renewLease(id: string, holder: string, untilMs: number): Promise<boolean>;
  /** Writes a refresh's result and frees the lease, if `holder` still has it. */
  finishRefresh(id: string, holder: string, state: SourceRefreshState): Promise<Source | null>;
  /**
   * Records `warning` as the source's last logged health warning if its record is still `seen`
   * (as the caller read it): one conditional update, so of the processes that read the same
   * record and write at once exactly one gets true, and logs the warning.
   */
  recordWarning(id: string, seen: SourceWarning, warning: SourceWarning): Promise<boolean>;
}
