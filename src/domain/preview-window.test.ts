import { describe, expect, it } from 'vitest';
import { clipToPreview, showsInPreview } from './preview-window.js';
import { DAY_MS, parseScheduleWindow } from './schedule-window.js';

const NOW = Date.UTC(2026, 7, 22, 10, 30);
const TODAY = Date.UTC(2026, 7, 22);
const clip = (days: string | undefined, all?: string) =>
  clipToPreview(parseScheduleWindow(days, all, NOW), NOW);

describe('preview window', () => {
  it('keeps today and tomorrow of `all`, the default and long lookbacks', () => {
    const both = { kind: 'range', fromMs: TODAY, toMs: TODAY + 2 * DAY_MS };
    expect(clip('all')).toEqual(both);
    expect(clip(undefined, 'true')).toEqual(both);
    expect(clip(undefined)).toEqual(both);
    expect(clip('365')).toEqual(both);
  });

  it('keeps a lookback that starts later than midnight as it is, up to the end of tomorrow', () => {
    // Midnight is 10.5 hours back; a 1-day lookback already reaches before it.
    expect(clip('1')).toEqual({ kind: 'range', fromMs: TODAY, toMs: TODAY + 2 * DAY_MS });
    const late = NOW + 20 * 3_600_000;
    expect(clipToPreview({ kind: 'range', fromMs: late }, NOW)).toEqual({
      kind: 'range',
      fromMs: late,
      toMs: TODAY + 2 * DAY_MS,
    });
  });

  it('serves today and tomorrow as asked, and nothing of yesterday', () => {
    expect(clip('today')).toEqual({ kind: 'range', fromMs: TODAY, toMs: TODAY + DAY_MS });
    expect(clip('TOMORROW')).toEqual({
      kind: 'range',
      fromMs: TODAY + DAY_MS,
      toMs: TODAY + 2 * DAY_MS,
    });
    const yesterday = clip('yesterday');
    expect(yesterday.toMs).toBe(yesterday.fromMs);
  });

  it('never reaches past tomorrow, whatever the window', () => {
    const far = clipToPreview({ kind: 'range', fromMs: TODAY + 5 * DAY_MS }, NOW);
    expect(far.toMs - far.fromMs).toBe(0);
    expect(far.fromMs).toBe(TODAY + 2 * DAY_MS);
  });

  it('shows on air the programmes starting in its days and the one on as today begins', () => {
    const preview = clipToPreview({ kind: 'all' }, NOW);
    const HOUR = 3_600_000;
    const cases: [start: number, stop: number | null, shown: boolean][] = [
      [TODAY, TODAY + HOUR, true],
      [TODAY + 2 * DAY_MS - HOUR, null, true],
      [TODAY - HOUR, TODAY + HOUR, true], // still on at midnight
      [TODAY - HOUR, TODAY, false], // ended as today began
      [TODAY - HOUR, null, false], // no stop: not known to be on
      [TODAY - DAY_MS, TODAY - DAY_MS + HOUR, false],
      [TODAY + 2 * DAY_MS, TODAY + 2 * DAY_MS + HOUR, false],
    ];
    for (const [start, stop, shown] of cases) {
      expect([start, stop, showsInPreview(preview, start, stop)]).toEqual([start, stop, shown]);
    }
  });
});
