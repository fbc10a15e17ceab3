import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nextRun, sourceFlags, type SourceFlag } from '../domain/source-health.js';
import type { Source } from '../domain/source.js';
import type { SourceRefreshState } from '../storage/source-store.js';
import type { Store } from '../storage/store.js';
import { ingestXmltv, IngestError, type IngestSummary } from '../catalogue/ingest/ingest-xmltv.js';
import { describeError } from '../catalogue/ingest/ingest-error.js';
import {
  displayLocation,
  DownloadError,
  type DownloadLimits,
} from '../catalogue/ingest/guide-download.js';
import { downloadGuide } from './source-download.js';

/** How long a claim on a source holds without renewal; renewed while the refresh runs. */
export const LEASE_MS = 120_000;

/** The logging a refresh does (pino's methods). */
export interface RefreshLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What refreshing sources needs. */
export interface RefreshDeps {
  store: Store;
  now: () => number;
  log: RefreshLog;
  limits: DownloadLimits;
  retentionDays: number | null;
  changesRetentionDays: number | null;
  /** Names this process as lease holder (host, pid and a random part). */
  holder: string;
  leaseMs?: number;
  /** Stops a download at once (shutdown). */
  signal?: AbortSignal;
}

/** How a refresh request ended; 'busy', 'not-due' and 'missing' did nothing. */
export type RefreshResultOutcome = Source['lastOutcome'] | 'busy' | 'not-due' | 'missing';

export interface RefreshResult {
  sourceId: string;
  outcome: NonNullable<RefreshResultOutcome>;
  /** The source as the refresh left it (null when missing or removed meanwhile). */
  source: Source | null;
  status: number | null;
  error: string | null;
  /** The ingest's summary when new content was ingested. */
  summary: IngestSummary | null;
  flags: SourceFlag[];
}

type Finished = Omit<SourceRefreshState, 'nextRunAt' | 'failures'> & { succeeded: boolean };

/**
 * Refreshes one source: claims its lease (a scheduled run only when due; `force` for an
 * operator's request), downloads the guide conditionally into a temporary file, ingests it
 * when it changed, and records the outcome. A failed or cut download, or a guide the ingest
 * refuses, changes nothing in the catalogue and keeps the validators of the content last
 * ingested, so the next try fetches the guide again.
 */
export async function refreshSource(
  deps: RefreshDeps,
  id: string,
  options: { force: boolean },
): Promise<RefreshResult> {
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  const startedAt = deps.now();
  const claimed = await deps.store.sources.claimSource(id, {
    holder: deps.holder,
    nowMs: startedAt,
    leaseMs,
    onlyIfDue: !options.force,
  });
  if (claimed === null) {
    const source = await deps.store.sources.findSource(id);
    const outcome =
      source === null
        ? 'missing'
        : source.leaseUntil !== null && source.leaseUntil > startedAt
          ? 'busy'
          : 'not-due';
    return { sourceId: id, outcome, source, status: null, error: null, summary: null, flags: [] };
  }

  const heartbeat = setInterval(
    () => {
      deps.store.sources
        .renewLease(id, deps.holder, deps.now() + leaseMs)
        .then((held) => {
          if (!held) deps.log.warn({ source: id }, 'lost the lease on a source being refreshed');
        })
        .catch((error: unknown) =>
          deps.log.warn({ source: id, err: error }, 'could not renew a source lease'),
        );
    },
    Math.max(1_000, Math.floor(leaseMs / 3)),
  );
  let summary: IngestSummary | null = null;
  let finished: Finished;
  const dir = await mkdtemp(join(tmpdir(), 'onair-source-'));
  try {
    finished = await fetchAndIngest(deps, claimed, join(dir, 'guide'), (s) => (summary = s));
  } finally {
    clearInterval(heartbeat);
    await rm(dir, { recursive: true, force: true });
  }

  const endedAt = deps.now();
  const { succeeded, ...record } = finished;
  const state: SourceRefreshState = {
    ...record,
    ...nextRun(claimed.everyMs, claimed.failures, succeeded, endedAt),
  };
  const source = await deps.store.sources.finishRefresh(id, deps.holder, state);
  if (source === null) {
    deps.log.warn(
      { source: id },
      'a source was removed, or its lease lost, while it was refreshed; its outcome is not recorded',
    );
  }
  const flags = sourceFlags(source ?? { ...claimed, ...state }, endedAt);
  // Assigned in a callback, so not narrowed here.
  const ingested = summary as IngestSummary | null;
  const details = {
    source: id,
    location: displayLocation(claimed.location),
    outcome: state.lastOutcome,
    status: state.lastStatus,
    durationMs: endedAt - startedAt,
    // Of it, the ingest and its merge (IngestSummary), when the guide was ingested.
    ...(ingested === null ? {} : { ingestMs: ingested.durationMs, mergeMs: ingested.mergeMs }),
    flags,
  };
  if (succeeded) deps.log.info(details, `source refreshed: ${state.lastOutcome}`);
  else deps.log.warn({ ...details, error: state.lastError }, 'source refresh failed');
  return {
    sourceId: id,
    outcome: state.lastOutcome ?? 'failed',
    source,
    status: state.lastStatus,
    error: state.lastError,
    summary,
    flags,
  };
}

async function fetchAndIngest(
  deps: RefreshDeps,
  source: Source,
  target: string,
  onIngested: (summary: IngestSummary) => void,
): Promise<Finished> {
  const kept = {
    lastSuccessAt: source.lastSuccessAt,
    lastIngestAt: source.lastIngestAt,
    etag: source.etag,
    lastModified: source.lastModified,
    contentSha256: source.contentSha256,
    sourceFileId: source.sourceFileId,
    channels: source.channels,
    programmes: source.programmes,
    latestEndMs: source.latestEndMs,
  };
  let status: number | null = null;
  try {
    // Validators only count once content was ingested from them.
    const validators =
      source.lastIngestAt === null
        ? { etag: null, lastModified: null }
        : { etag: source.etag, lastModified: source.lastModified };
    const download = await downloadGuide(
      source.location,
      validators,
      target,
      deps.limits,
      deps.signal,
    );
    status = download.status;
    const now = deps.now();
    if (download.kind === 'not-modified') {
      return {
        ...kept,
        succeeded: true,
        lastSuccessAt: now,
        lastStatus: status,
        lastOutcome: 'not-modified',
        lastError: null,
      };
    }
    const validatorsNow = { etag: download.etag, lastModified: download.lastModified };
    if (source.lastIngestAt !== null && download.sha256 === source.contentSha256) {
      // Same bytes as last ingested (a server without conditional GET): nothing to merge.
      return {
        ...kept,
        ...validatorsNow,
        succeeded: true,
        lastSuccessAt: now,
        lastStatus: status,
        lastOutcome: 'unchanged',
        lastError: null,
      };
    }
    const summary = await ingestXmltv(
      deps.store.ingest,
      { name: displayLocation(source.location), path: target },
      {
        country: source.country,
        assumeOffsetMinutes: source.assumeOffsetMinutes,
        nowMs: now,
        retentionDays: deps.retentionDays,
        changesRetentionDays: deps.changesRetentionDays,
      },
    );
    onIngested(summary);
    const done = deps.now();
    return {
      ...validatorsNow,
      succeeded: true,
      lastSuccessAt: done,
      lastIngestAt: done,
      lastStatus: status,
      lastOutcome: 'ingested',
      lastError: null,
      contentSha256: download.sha256,
      sourceFileId: summary.sourceFileId,
      channels: summary.channels,
      programmes: summary.programmesStored,
      latestEndMs: summary.latestEndMs,
    };
  } catch (error) {
    if (error instanceof DownloadError) status = error.status ?? status;
    else if (!(error instanceof IngestError)) {
      deps.log.error({ source: source.id, err: error }, 'unexpected error refreshing a source');
    }
    return {
      ...kept,
      succeeded: false,
      lastStatus: status,
      lastOutcome: 'failed',
      lastError: describeError(error),
    };
  }
}
