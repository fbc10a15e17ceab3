/** Guide sources the server refreshes on its own schedule. */

/** How a source's last refresh ended. */
export type RefreshOutcome = 'ingested' | 'not-modified' | 'unchanged' | 'failed';

/** A guide the server fetches and ingests on its own schedule. */
export interface Source {
  id: string;
  /** An http(s) URL or an absolute file path. */
  location: string;
  country: string;
  everyMs: number;
  assumeOffsetMinutes: number;
  createdAt: number;
  /** When the source is next due. */
  nextRunAt: number;
  /** Failed refreshes in a row (0 after a success). */
  failures: number;
  lastAttemptAt: number | null;
  /** Last refresh that succeeded: ingested, or the guide had not changed. */
  lastSuccessAt: number | null;
  /** Last refresh that ingested new content. */
  lastIngestAt: number | null;
  /** HTTP status of the last attempt (null for files, or when no answer came). */
  lastStatus: number | null;
  lastOutcome: RefreshOutcome | null;
  lastError: string | null;
  /** Validators of the content last ingested, sent back for a conditional GET. */
  etag: string | null;
  lastModified: string | null;
  contentSha256: string | null;
  /** The ingest record (programmes' sourceFileId) of the last ingest. */
  sourceFileId: string | null;
  /** Counts of the last ingest. */
  channels: number | null;
  programmes: number | null;
  /** Latest programme end of the last ingest (epoch ms). */
  latestEndMs: number | null;
  /** Who is refreshing the source now, and until when the claim holds without renewal. */
  leaseHolder: string | null;
  leaseUntil: number | null;
  /**
   * The warning last logged about the source's health (source-health.ts), by whichever process
   * logged it: its flags, joined by commas, and when. Null when none stands.
   */
  warnedFlags: string | null;
  warnedAt: number | null;
}
