import { isUuid } from './catalogue-ids.js';
import { parseCountryCode } from './country.js';
import { errors } from './errors.js';

/**
 * The rules of `GET /api/v1/guide` and `GET /api/v1/now` (issue 22): which channels a request is
 * for, which instant or window, and which programmes of a channel answer it. Pure: the routes
 * read the catalogue and pass each channel's programmes in.
 */

export const MAX_GUIDE_CHANNELS = 100;
export const MAX_GUIDE_HOURS = 48;
export const DEFAULT_GUIDE_HOURS = 3;
export const MAX_PAGE_CHANNELS = 500;
/** Bounds `offset` so it stays a small integer; no country has nearly this many channels. */
export const MAX_PAGE_OFFSET = 1_000_000;

const HOUR_MS = 3_600_000;

/** Which channels a guide or now request is for. */
export type ChannelSelection =
  | { kind: 'country'; country: string /* stored upper-case form */; limit: number; offset: number }
  | { kind: 'channels'; ids: string[] /* lower-case, duplicates removed, order kept */ };

/** An instant in the request, or the time of the request. */
export type Instant = { kind: 'now' } | { kind: 'at'; ms: number /* whole seconds */ };

export interface GuideQuery {
  selection: ChannelSelection;
  from: Instant;
  hours: number;
}

export interface NowQuery {
  selection: ChannelSelection;
  at: Instant;
}

/** Raw query values as Fastify gives them (single strings; a repeated parameter is refused before). */
export type RawQuery = Readonly<Record<string, string | undefined>>;

/** Reads `country`, `channels`, `from`, `hours`, `limit` and `offset`; other keys are ignored. */
export function parseGuideQuery(query: RawQuery): GuideQuery {
  return {
    selection: parseSelection(query),
    from: parseInstantParameter('from', query['from']),
    hours: parseHours(query['hours']),
  };
}

/** Reads `country`, `channels`, `at`, `limit` and `offset`; other keys are ignored. */
export function parseNowQuery(query: RawQuery): NowQuery {
  return { selection: parseSelection(query), at: parseInstantParameter('at', query['at']) };
}

/** The guide's window [fromMs, toMs) for a request answered at `nowMs`. */
export function guideWindow(query: GuideQuery, nowMs: number): { fromMs: number; toMs: number } {
  const fromMs = resolveInstant(query.from, nowMs);
  return { fromMs, toMs: fromMs + query.hours * HOUR_MS };
}

/** The instant in milliseconds, whole seconds (the time of the request is floored). */
export function resolveInstant(instant: Instant, nowMs: number): number {
  return instant.kind === 'at' ? instant.ms : Math.floor(nowMs / 1000) * 1000;
}

function parseSelection(query: RawQuery): ChannelSelection {
  const country = query['country'];
  const channels = query['channels'];
  const limit = query['limit'];
  const offset = query['offset'];
  if (country !== undefined && channels !== undefined) {
    throw errors.invalidParameters(
      'Use either country or channels, not both: country=CC for a country, channels=ID,ID,… for up to 100 channels',
    );
  }
  if (channels !== undefined) {
    if (limit !== undefined || offset !== undefined) {
      throw errors.invalidParameters(
        "limit and offset page a country's channels: leave them out with channels",
      );
    }
    return { kind: 'channels', ids: parseChannelIds(channels) };
  }
  if (country === undefined) {
    throw errors.invalidParameters(
      'Send country=CC for the channels of a country, or channels=ID,ID,… with 1 to 100 channel ids',
    );
  }
  return {
    kind: 'country',
    country: parseCountryCode(country),
    limit: parseBoundedInteger('limit', limit, 1, MAX_PAGE_CHANNELS, MAX_PAGE_CHANNELS),
    offset: parseBoundedInteger('offset', offset, 0, MAX_PAGE_OFFSET, 0),
  };
}

/**
 * The ids of `channels=`, lower-case, each once, in the order first given. The limit counts
 * distinct ids: the answer has one entry per distinct id, so that is what the limit bounds, and
 * a client that repeats an id by accident is not refused for it (ids that differ only in case
 * are the same id). The first problem found, in the order given, is the one reported.
 */
export function parseChannelIds(text: string): string[] {
  if (text === '') {
    throw errors.invalidParameters(
      'channels is empty: send 1 to 100 channel ids separated by commas',
    );
  }
  const seen = new Set<string>();
  const entries = text.split(',');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] ?? '';
    if (entry === '') {
      throw errors.invalidParameters(
        `channels has an empty entry (number ${i + 1}): separate channel ids with single commas, none at the start or end`,
      );
    }
    if (!isUuid(entry)) {
      throw errors.invalidParameters(
        `channels entry number ${i + 1} is not a channel id: channel ids are UUIDs`,
      );
    }
    seen.add(entry.toLowerCase());
    if (seen.size > MAX_GUIDE_CHANNELS) {
      throw errors.invalidParameters(
        `channels lists more than ${MAX_GUIDE_CHANNELS} channel ids: send at most ${MAX_GUIDE_CHANNELS} per request`,
      );
    }
  }
  return [...seen];
}

function parseHours(text: string | undefined): number {
  return parseBoundedInteger('hours', text, 1, MAX_GUIDE_HOURS, DEFAULT_GUIDE_HOURS);
}

/** An integer query value in [min, max], or `fallback` when absent. */
function parseBoundedInteger(
  name: string,
  text: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (text === undefined) return fallback;
  // Digits only, as `days`: "+1", " 1", "1.0" and "1e2" are not the integers the contract allows.
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) {
    throw errors.invalidParameters(`Invalid ${name}: use an integer from ${min} to ${max}`);
  }
  return n;
}

function parseInstantParameter(name: 'from' | 'at', text: string | undefined): Instant {
  if (text === undefined || text.toLowerCase() === 'now') return { kind: 'now' };
  const ms = parseInstant(text);
  if (ms === null) {
    // A `+` sent unencoded in a query string arrives as a space, hence the hint.
    throw errors.invalidParameters(
      `Invalid ${name}: use now, YYYYMMDDHHMMSS +HHMM (XMLTV) or ISO 8601 with an offset or Z, such as 2026-08-22T18:30:00+02:00 (send + as %2B)`,
    );
  }
  return { kind: 'at', ms };
}

const XMLTV_INSTANT = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}) ([+-])(\d{2})(\d{2})$/;
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|([+-])(\d{2}):?(\d{2}))$/;

/**
 * An instant a client sends, in epoch milliseconds truncated to whole seconds, or null. Two
 * forms: the XMLTV one the API answers with, strictly `YYYYMMDDHHMMSS +HHMM` (all 14 digits,
 * one space, a signed 4-digit offset; the reader's leniency for guides is not wanted here), and
 * ISO 8601 `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z`, `±HH:MM` or `±HHMM`. A time without an
 * offset is refused: whose local time it means is not known. Calendar values must exist, years
 * 1000–9999, offsets at most ±14:59.
 */
export function parseInstant(text: string): number | null {
  const m = XMLTV_INSTANT.exec(text) ?? ISO_INSTANT.exec(text);
  return m ? instantOf(m) : null;
}

/**
 * An instant kept exactly, for a rule on whole-second times that must hold to the last digit
 * sent (a search's [from, to)): the whole second at or before it, in epoch milliseconds, and the
 * digits of its fraction of a second without trailing zeros ('' when none). Kept as digits, as a
 * float of milliseconds is exact only to about a quarter of a microsecond.
 */
export interface ExactInstant {
  readonly secondMs: number;
  readonly fraction: string;
}

/** parseInstant keeping the fraction of a second. */
export function parseExactInstant(text: string): ExactInstant | null {
  const secondMs = parseInstant(text);
  if (secondMs === null) return null;
  const digits = /:\d{2}\.(\d+)/.exec(text)?.[1] ?? '';
  return { secondMs, fraction: digits.replace(/0+$/, '') };
}

/**
 * `a - b` compared with `ms` whole milliseconds: negative, zero or positive. Fraction digit
 * strings without trailing zeros compare as their values do.
 */
export function compareExactSpan(a: ExactInstant, b: ExactInstant, ms: number): number {
  const seconds = a.secondMs - b.secondMs - ms;
  if (seconds !== 0) return Math.sign(seconds);
  return a.fraction === b.fraction ? 0 : a.fraction > b.fraction ? 1 : -1;
}

/** The first whole second at or after an exact instant, in epoch milliseconds. */
export function wholeSecondUp(instant: ExactInstant): number {
  return instant.secondMs + (instant.fraction === '' ? 0 : 1000);
}

/**
 * The instant of a match of either form (the same groups: year, month, day, hour, minute,
 * seconds if given, offset sign and digits if given), or null when a value is out of range. The
 * fraction is not captured: dropping it floors to whole seconds, as offsets are whole minutes.
 */
function instantOf(m: RegExpExecArray): number | null {
  const field = (i: number): number => Number(m[i] ?? '0');
  const year = field(1);
  const month = field(2);
  const day = field(3);
  const hour = field(4);
  const minute = field(5);
  const second = field(6);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return null;
  }
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[7] !== undefined) {
    const offsetHours = Number(m[8]);
    const offsetMins = Number(m[9]);
    if (offsetHours > 14 || offsetMins > 59) return null;
    offsetMinutes = (m[7] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A programme as the rules need it (the routes pass richer objects). */
export interface Timed {
  startMs: number | null;
  stopMs: number | null;
  id: string;
}

/** The (start, id) order of programmes with a parsed start: negative when `a` comes first. */
function compareTimed(a: Timed, b: Timed): number {
  const byStart = (a.startMs ?? 0) - (b.startMs ?? 0);
  if (byStart !== 0) return byStart;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The programmes of ONE channel in the window [fromMs, toMs): start < to and stop > from, so the
 * one running at `from` is in, one ending exactly at `from` or starting exactly at `to` is out,
 * and a zero-length one is in only strictly inside. A programme whose start or stop did not
 * parse is left out. Ordered by start, then id.
 *
 * Runs once per channel per uncached answer, so it is one pass with no sort when the input is
 * already in (start, id) order, as the routes pass it (unparsed starts may be anywhere: they are
 * skipped). Input in another order is still answered correctly, by sorting what was kept.
 */
export function inWindow<P extends Timed>(
  programmes: readonly P[],
  fromMs: number,
  toMs: number,
): P[] {
  const kept: P[] = [];
  let ordered = true;
  for (const p of programmes) {
    const start = p.startMs;
    const stop = p.stopMs;
    if (start === null || stop === null || !(start < toMs && stop > fromMs)) continue;
    const last = kept[kept.length - 1];
    if (ordered && last !== undefined && compareTimed(last, p) > 0) ordered = false;
    kept.push(p);
  }
  if (!ordered) kept.sort(compareTimed);
  return kept;
}

/** Whether a programme counts for now/next: both its start and its stop parsed. */
function isTimed(p: Timed): p is Timed & { startMs: number; stopMs: number } {
  return p.startMs !== null && p.stopMs !== null;
}

/**
 * What is on at `atMs` and what comes next, on ONE channel. `now` runs at `at` (start ≤ at <
 * stop); of overlapping ones, the last in (start, id) order: the latest start, and of equal
 * starts the greatest id. `next` is the first in (start, id) order that starts after `at`. A
 * zero-length programme starting at `at` is neither (it does not run at `at`, and does not start
 * after it). Programmes whose start or stop did not parse never count.
 *
 * One pass, no sort; the answer does not depend on the order of the input (the routes pass it in
 * (start, id) order).
 */
export function nowAndNext<P extends Timed>(
  programmes: readonly P[],
  atMs: number,
): { now: P | null; next: P | null } {
  let now: P | null = null;
  let next: P | null = null;
  for (const p of programmes) {
    if (!isTimed(p)) continue;
    if (p.startMs <= atMs) {
      if (atMs < p.stopMs && (now === null || compareTimed(p, now) > 0)) now = p;
    } else if (next === null || compareTimed(p, next) < 0) {
      next = p;
    }
  }
  return { now, next };
}

/**
 * The first instant after `atMs` at which `nowAndNext` may answer differently (a start or stop
 * reached), or null when no later instant can change it: an answer computed at `atMs` holds for
 * every instant in [atMs, that instant). It may be earlier than the real change (an overlapped
 * programme ending), never later, so an answer kept until then is never stale.
 */
export function nowAndNextUntil(programmes: readonly Timed[], atMs: number): number | null {
  let until: number | null = null;
  for (const p of programmes) {
    if (!isTimed(p)) continue;
    let change: number | null = null;
    if (p.startMs > atMs) change = p.startMs;
    else if (p.stopMs > atMs) change = p.stopMs;
    if (change !== null && (until === null || change < until)) until = change;
  }
  return until;
}

/**
 * The page of a country's ordered channel list from `offset`, at most `limit` long (the parsed
 * limit is at least 1), and the offset of the next page, or null when this page reaches the end.
 */
export function pageOf<T>(
  all: readonly T[],
  limit: number,
  offset: number,
): { page: T[]; next: number | null } {
  const end = offset + limit;
  return { page: all.slice(offset, end), next: end < all.length ? end : null };
}
