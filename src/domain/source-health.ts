import { DAY_MS } from './schedule-window.js';

/** A source is overdue when it has not refreshed successfully for this many intervals. */
export const OVERDUE_INTERVALS = 2;
/** A schedule that ends within this time is about to run out. */
export const ENDING_WITHIN_MS = DAY_MS;
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
