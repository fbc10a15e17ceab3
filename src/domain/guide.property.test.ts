import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_GUIDE_CHANNELS,
  inWindow,
  nowAndNext,
  nowAndNextUntil,
  pageOf,
  parseGuideQuery,
  parseInstant,
  type Timed,
} from './guide.js';

const RUNS = 500;
const BASE = Date.UTC(2026, 7, 22, 18, 0, 0);
const MIN = 60_000;

/** Times on a coarse grid around BASE, so starts, stops and instants often coincide. */
const time = fc.integer({ min: -12, max: 12 }).map((n) => BASE + n * 10 * MIN);
const maybeTime = fc.option(time, { freq: 6 });
const programme = fc.record({
  id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'),
  startMs: maybeTime,
  stopMs: maybeTime,
});
/**
 * Programmes of one channel in any order, some overlapping, zero-length, reversed or unparsed;
 * ids are unique, as a programme's id is, so (start, id) orders them completely.
 */
const programmes = fc.uniqueArray(programme, { maxLength: 12, selector: (x) => x.id });

function byStartThenId(a: Timed, b: Timed): number {
  return (a.startMs ?? 0) - (b.startMs ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The rules as written, without regard for speed. */
function referenceNowAndNext(list: readonly Timed[], at: number) {
  const counted = list
    .filter((x) => x.startMs !== null && x.stopMs !== null)
    .sort(byStartThenId) as (Timed & { startMs: number; stopMs: number })[];
  const running = counted.filter((x) => x.startMs <= at && at < x.stopMs);
  return {
    now: running[running.length - 1] ?? null,
    next: counted.find((x) => x.startMs > at) ?? null,
  };
}

describe('guide rules, properties', () => {
  it('inWindow keeps exactly what starts before to and stops after from, in (start, id) order', () => {
    fc.assert(
      fc.property(programmes, time, fc.integer({ min: 1, max: 12 }), (list, from, steps) => {
        const to = from + steps * 10 * MIN;
        const kept = inWindow(list, from, to);
        const expected = list
          .filter((x) => x.startMs !== null && x.stopMs !== null)
          .filter((x) => (x.startMs ?? 0) < to && (x.stopMs ?? 0) > from)
          .sort(byStartThenId);
        expect(kept.map((x) => [x.startMs, x.id])).toEqual(expected.map((x) => [x.startMs, x.id]));
        expect(kept).toHaveLength(expected.length);
        for (const x of kept) expect(list).toContain(x);
      }),
      { numRuns: RUNS },
    );
  });

  it('inWindow on input already in (start, id) order keeps that order as it is', () => {
    fc.assert(
      fc.property(programmes, time, (list, from) => {
        const sorted = [...list].sort(byStartThenId);
        const kept = inWindow(sorted, from, from + 60 * MIN);
        expect(kept).toEqual(sorted.filter((x) => kept.includes(x)));
      }),
      { numRuns: RUNS },
    );
  });

  it('nowAndNext agrees with the rules applied one by one, in any input order', () => {
    fc.assert(
      fc.property(programmes, time, (list, at) => {
        const answer = nowAndNext(list, at);
        const expected = referenceNowAndNext(list, at);
        expect(answer.now).toBe(expected.now);
        expect(answer.next).toBe(expected.next);
      }),
      { numRuns: RUNS },
    );
  });

  it('nowAndNext answers the same at every instant before nowAndNextUntil, and not always after', () => {
    fc.assert(
      fc.property(programmes, time, fc.integer({ min: 0, max: 300 * MIN }), (list, at, step) => {
        const until = nowAndNextUntil(list, at);
        const answer = nowAndNext(list, at);
        const later = at + step;
        if (until === null || later < until) {
          expect(nowAndNext(list, later)).toEqual(answer);
        }
        if (until !== null) expect(until).toBeGreaterThan(at);
      }),
      { numRuns: RUNS },
    );
  });

  it('pageOf pages, followed by next, give the whole list once, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        (all, limit) => {
          const seen: number[] = [];
          let offset: number | null = 0;
          let pages = 0;
          while (offset !== null) {
            const { page, next }: { page: number[]; next: number | null } = pageOf(
              all,
              limit,
              offset,
            );
            expect(page.length).toBeLessThanOrEqual(limit);
            if (next !== null) expect(page).toHaveLength(limit);
            seen.push(...page);
            offset = next;
            pages++;
          }
          expect(seen).toEqual(all);
          expect(pages).toBe(Math.max(1, Math.ceil(all.length / limit)));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('parseInstant reads both forms of any valid instant and offset to the same moment', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.date({
          min: new Date(Date.UTC(1001, 0, 1)),
          max: new Date(Date.UTC(9998, 11, 31)),
          noInvalidDate: true,
        }),
        fc.integer({ min: -(14 * 60 + 59), max: 14 * 60 + 59 }),
        fc.integer({ min: 0, max: 999 }),
        (date, offset, millis) => {
          const ms = Math.floor(date.getTime() / 1000) * 1000;
          const local = new Date(ms + offset * MIN);
          const fields = [
            pad(local.getUTCFullYear(), 4),
            pad(local.getUTCMonth() + 1),
            pad(local.getUTCDate()),
            pad(local.getUTCHours()),
            pad(local.getUTCMinutes()),
            pad(local.getUTCSeconds()),
          ];
          const sign = offset < 0 ? '-' : '+';
          const hh = pad(Math.floor(Math.abs(offset) / 60));
          const mm = pad(Math.abs(offset) % 60);
          const [y, mo, d, h, mi, s] = fields;
          expect(parseInstant(`${fields.join('')} ${sign}${hh}${mm}`)).toBe(ms);
          const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}.${pad(millis, 3)}`;
          expect(parseInstant(`${iso}${sign}${hh}:${mm}`)).toBe(ms);
          expect(parseInstant(`${iso}${sign}${hh}${mm}`)).toBe(ms);
          if (offset === 0) expect(parseInstant(`${iso}Z`)).toBe(ms);
          // The same text with no offset names no instant.
          expect(parseInstant(iso)).toBeNull();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('channels= keeps the distinct ids, lower-case, first-given order, and refuses over 100', () => {
    const id = fc
      .integer({ min: 0, max: 150 })
      .map((n) => `0000000a-0000-4000-8000-${String(n).padStart(12, '0')}`);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(id, fc.boolean()), { minLength: 1, maxLength: 220 }),
        (entries) => {
          const given = entries.map(([x, upper]) => (upper ? x.toUpperCase() : x));
          const distinct = [...new Set(given.map((x) => x.toLowerCase()))];
          const parse = () => parseGuideQuery({ channels: given.join(',') }).selection;
          if (distinct.length > MAX_GUIDE_CHANNELS) {
            expect(parse).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS' }));
          } else {
            expect(parse()).toEqual({ kind: 'channels', ids: distinct });
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
