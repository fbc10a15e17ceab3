import { errors } from './errors.js';

export const DAY_MS = 86_400_000;
export const DEFAULT_LOOKBACK_DAYS = 7;
export const MAX_LOOKBACK_DAYS = 365;

/**
 * Which programmes of a channel a request asks for. `all` includes programmes whose start did
 * not parse; a `range` keeps only parsed starts with `fromMs <= start < toMs` (no `toMs` means
 * no upper bound).
 */
export type ScheduleWindow = { kind: 'all' } | { kind: 'range'; fromMs: number; toMs?: number };

const KEYWORD_OFFSET_DAYS: Record<string, number> = { yesterday: -1, today: 0, tomorrow: 1 };

/** Midnight UTC of the day `ms` falls on. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * The programmes of a schedule that `window` selects, as the half-open index range [from, to).
 * A schedule lists its programmes with a parsed start first, in start order (`startsMs`), then
 * those whose start does not parse, `total` in all. `all` selects every one; a `range` the
 * parsed starts with `fromMs <= start < toMs`, never one that did not parse. This is the one
 * place the rule is applied: the stores return whole schedules.
 */
export function windowRange(
  startsMs: ArrayLike<number>,
  total: number,
  window: ScheduleWindow,
): { from: number; to: number } {
  if (window.kind === 'all') return { from: 0, to: total };
  const from = firstAtOrAfter(startsMs, window.fromMs);
  const to = window.toMs === undefined ? startsMs.length : firstAtOrAfter(startsMs, window.toMs);
  return { from, to: Math.max(from, to) };
}

/** First index of the ascending `starts` whose value is at or after `ms` (binary search). */
function firstAtOrAfter(starts: ArrayLike<number>, ms: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] ?? 0) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A window relative to the time of a request: resolves it for the instant `nowMs`. */
export type WindowAt = (nowMs: number) => ScheduleWindow;

/**
 * Applies the contract's filter rules (docs/api.md) to the raw `days` and `all` query values,
 * apart from the time: whether the values are allowed does not depend on it, the window they
 * select does. Throws INVALID_DAYS or INVALID_PARAMETERS for anything the contract does not
 * allow, else returns the window for any instant (a kept answer re-derives it as time moves).
 */
export function parseScheduleQuery(days: string | undefined, all: string | undefined): WindowAt {
  if (days !== undefined && all !== undefined) {
    throw errors.invalidParameters('Use either days or all, not both');
  }
  if (all !== undefined) {
    const flag = all.toLowerCase();
    if (flag === '1' || flag === 'true') return () => ({ kind: 'all' });
    throw errors.invalidParameters('Invalid all: use all=1 or all=true');
  }
  if (days === undefined) {
    return (nowMs) => ({ kind: 'range', fromMs: nowMs - DEFAULT_LOOKBACK_DAYS * DAY_MS });
  }
  const keyword = days.toLowerCase();
  if (keyword === 'all') return () => ({ kind: 'all' });
  const offset = KEYWORD_OFFSET_DAYS[keyword];
  if (offset !== undefined) {
    return (nowMs) => {
      const fromMs = startOfUtcDay(nowMs) + offset * DAY_MS;
      return { kind: 'range', fromMs, toMs: fromMs + DAY_MS };
    };
  }
  // All digits only: "+7", "7.0", " 7" and "1e2" are not integers the contract allows.
  if (!/^[0-9]+$/.test(days)) throw errors.invalidDays();
  const n = Number(days);
  if (n < 1 || n > MAX_LOOKBACK_DAYS) throw errors.invalidDays();
  return (nowMs) => ({ kind: 'range', fromMs: nowMs - n * DAY_MS });
}

/** The window the `days` and `all` query values select at `nowMs` (see parseScheduleQuery). */
export function parseScheduleWindow(
  days: string | undefined,
  all: string | undefined,
  nowMs: number,
): ScheduleWindow {
  return parseScheduleQuery(days, all)(nowMs);
}
