import { describe, expect, it } from 'vitest';
import {
  describeSourceFlag,
  ENDING_WITHIN_MS,
  FIRST_RETRY_MS,
  nextRun,
  scheduleStatus,
  sourceFlags,
  WARNING_REPEAT_MS,
  warningDue,
  type SourceFacts,
} from './source-health.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 2, 1, 12);

const healthy: SourceFacts = {
  everyMs: 6 * HOUR,
  createdAt: NOW - 10 * 24 * HOUR,
  lastSuccessAt: NOW - HOUR,
  lastIngestAt: NOW - HOUR,
  lastOutcome: 'ingested',
  latestEndMs: NOW + 5 * 24 * HOUR,
};

describe('source health', () => {
  it('flags nothing on a source that refreshes and has days of schedule ahead', () => {
    expect(sourceFlags(healthy, NOW)).toEqual([]);
  });

  it('flags a source without a success for more than twice its interval', () => {
    expect(sourceFlags({ ...healthy, lastSuccessAt: NOW - 12 * HOUR }, NOW)).toEqual([]);
    expect(sourceFlags({ ...healthy, lastSuccessAt: NOW - 12 * HOUR - 1 }, NOW)).toEqual([
      'overdue',
    ]);
    // Never succeeded: counted from when it was added.
    const fresh = { ...healthy, lastSuccessAt: null, lastIngestAt: null, lastOutcome: null };
    expect(sourceFlags({ ...fresh, createdAt: NOW - HOUR }, NOW)).toEqual([]);
    expect(sourceFlags({ ...fresh, createdAt: NOW - 13 * HOUR }, NOW)).toEqual(['overdue']);
  });

  it('flags a schedule that ends within 24 hours or has ended', () => {
    expect(sourceFlags({ ...healthy, latestEndMs: NOW + ENDING_WITHIN_MS + 1 }, NOW)).toEqual([]);
    expect(sourceFlags({ ...healthy, latestEndMs: NOW + ENDING_WITHIN_MS }, NOW)).toEqual([
      'schedule-ending',
    ]);
    expect(sourceFlags({ ...healthy, latestEndMs: NOW }, NOW)).toEqual(['schedule-ended']);
    expect(sourceFlags({ ...healthy, latestEndMs: null }, NOW)).toEqual(['schedule-ended']);
    expect(scheduleStatus(NOW - 1, NOW)).toBe('ended');
    expect(scheduleStatus(NOW + HOUR, NOW)).toBe('ending');
    expect(scheduleStatus(NOW + 2 * ENDING_WITHIN_MS, NOW)).toBeNull();
  });

  it('notes a failed last refresh, with its error', () => {
    const failed = { ...healthy, lastOutcome: 'failed', lastError: 'HTTP 503 from x' };
    expect(sourceFlags(failed, NOW)).toEqual(['last-refresh-failed']);
    expect(describeSourceFlag('last-refresh-failed', failed)).toBe(
      'its last refresh failed: HTTP 503 from x',
    );
    expect(describeSourceFlag('schedule-ended', { ...healthy, latestEndMs: NOW })).toBe(
      'its schedule ended at 2026-03-01T12:00:00.000Z',
    );
  });

  it('schedules the next run after the interval, or retries sooner with doubling waits', () => {
    expect(nextRun(6 * HOUR, 3, true, NOW)).toEqual({ nextRunAt: NOW + 6 * HOUR, failures: 0 });
    expect(nextRun(6 * HOUR, 0, false, NOW)).toEqual({
      nextRunAt: NOW + FIRST_RETRY_MS,
      failures: 1,
    });
    expect(nextRun(6 * HOUR, 1, false, NOW).nextRunAt).toBe(NOW + 2 * FIRST_RETRY_MS);
    expect(nextRun(6 * HOUR, 2, false, NOW).nextRunAt).toBe(NOW + 4 * FIRST_RETRY_MS);
    // Never longer than the interval, however many failures.
    expect(nextRun(6 * HOUR, 50, false, NOW)).toEqual({ nextRunAt: NOW + 6 * HOUR, failures: 51 });
  });

  it('warns about new flags at once and about the same flags hourly, and forgets them once gone', () => {
    const none = { flags: null, at: null };
    expect(warningDue(none, [], NOW)).toBeNull();
    const first = { flags: 'overdue,last-refresh-failed', at: NOW };
    expect(warningDue(none, ['overdue', 'last-refresh-failed'], NOW)).toEqual({
      log: true,
      record: first,
    });
    // The same flags: not again within the hour, whoever logged them.
    expect(
      warningDue(first, ['overdue', 'last-refresh-failed'], NOW + WARNING_REPEAT_MS - 1),
    ).toBeNull();
    expect(warningDue(first, ['overdue', 'last-refresh-failed'], NOW + WARNING_REPEAT_MS)).toEqual({
      log: true,
      record: { ...first, at: NOW + WARNING_REPEAT_MS },
    });
    // Other flags at once; none left: the warning is forgotten, without a line.
    expect(warningDue(first, ['overdue'], NOW + 1)).toEqual({
      log: true,
      record: { flags: 'overdue', at: NOW + 1 },
    });
    expect(warningDue(first, [], NOW + 1)).toEqual({ log: false, record: none });
  });
});
