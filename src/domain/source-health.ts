import { DAY_MS } from './schedule-window.js';

/** A source is overdue when it has not refreshed successfully for this many intervals. */
export const OVERDUE_INTERVALS = 2;
/** A schedule that ends within this time is about to run out. */
export const ENDING_WITHIN_MS = DAY_MS;
/** A source that stays flagged is warned about again after this long. */
export const WARNING_REPEAT_MS = 3_600_000;
/** First wait after a failed refresh; it doubles per failure in a row, up to the interval. */
export const FIRST_RETRY_MS = 5 * 60_000;

/** What needs the operator's eye about a source. */
export type SourceFlag = 'overdue' | 'schedule-ending' | 'schedule-ended' | 'last-refresh-failed';

/** The facts about a source that its health is judged on. */
export interface SourceFacts {
  everyMs: number;
  createdAt: number;
  lastSuccessAt: number | null;
  lastIngestAt: number | null;
  lastOutcome: string | null;
  lastError?: string | null;
  latestEndMs: number | null;
}

/**
 * Where a guide's schedule stands at `nowMs`: 'ended' when its last programme ended (a file of
 * history only), 'ending' when it ends within ENDING_WITHIN_MS, else null. A guide without any
 * programme time has ended.
 */
export function scheduleStatus(
  latestEndMs: number | null,
  nowMs: number,
): 'ended' | 'ending' | null {
  if (latestEndMs === null || latestEndMs <= nowMs) return 'ended';
  if (latestEndMs <= nowMs + ENDING_WITHIN_MS) return 'ending';
  return null;
}

/** The flags of a source at `nowMs`, in a fixed order. */
export function sourceFlags(source: SourceFacts, nowMs: number): SourceFlag[] {
  const flags: SourceFlag[] = [];
  const since = source.lastSuccessAt ?? source.createdAt;
  if (nowMs - since > OVERDUE_INTERVALS * source.everyMs) flags.push('overdue');
  if (source.lastIngestAt !== null) {
    const schedule = scheduleStatus(source.latestEndMs, nowMs);
    if (schedule === 'ended') flags.push('schedule-ended');
    else if (schedule === 'ending') flags.push('schedule-ending');
  }
  if (source.lastOutcome === 'failed') flags.push('last-refresh-failed');
  return flags;
}

/** The warning last logged about a source, as the database holds it (Source). */
export interface SourceWarning {
  /** Its flags, joined by commas; null when no warning stands. */
  flags: string | null;
  at: number | null;
}

/**
 * What to do about the warning of a source flagged `flags` at `nowMs`, given the warning last
 * logged (by any process over the database, so that a fleet warns once): a warning to log and
 * record when the flags are new or their last warning is WARNING_REPEAT_MS old; none to record
 * when the flags are gone (so that they are warned about again when they come back); else null.
 */
export function warningDue(
  last: SourceWarning,
  flags: readonly SourceFlag[],
  nowMs: number,
): { log: boolean; record: SourceWarning } | null {
  if (flags.length === 0) {
    return last.flags === null ? null : { log: false, record: { flags: null, at: null } };
  }
  const joined = flags.join(',');
  if (last.flags === joined && last.at !== null && nowMs - last.at < WARNING_REPEAT_MS) return null;
  return { log: true, record: { flags: joined, at: nowMs } };
}

/** When a source is next due after a refresh at `nowMs`, and its failures in a row. */
export function nextRun(
  everyMs: number,
  failuresBefore: number,
  succeeded: boolean,
  nowMs: number,
): { nextRunAt: number; failures: number } {
  if (succeeded) return { nextRunAt: nowMs + everyMs, failures: 0 };
  const failures = failuresBefore + 1;
  const wait = Math.min(everyMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
  return { nextRunAt: nowMs + wait, failures };
}

/** A flag in plain words, for the log and `sources list`. */
export function describeSourceFlag(flag: SourceFlag, source: SourceFacts): string {
  const iso = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString());
  switch (flag) {
    case 'overdue':
      return `no successful refresh since ${iso(source.lastSuccessAt ?? null)} (more than ${OVERDUE_INTERVALS} × its interval)`;
    case 'schedule-ended':
      return source.latestEndMs === null
        ? 'its guide has no programmes'
        : `its schedule ended at ${iso(source.latestEndMs)}`;
    case 'schedule-ending':
      return `its schedule ends within 24 hours, at ${iso(source.latestEndMs)}`;
    case 'last-refresh-failed':
      return source.lastError
        ? `its last refresh failed: ${source.lastError}`
        : 'its last refresh failed';
  }
  return flag satisfies never;
}
