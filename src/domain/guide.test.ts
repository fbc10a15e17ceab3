import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GUIDE_HOURS,
  MAX_GUIDE_CHANNELS,
  MAX_PAGE_CHANNELS,
  guideWindow,
  inWindow,
  nowAndNext,
  nowAndNextUntil,
  pageOf,
  parseGuideQuery,
  parseInstant,
  parseNowQuery,
  resolveInstant,
  type RawQuery,
  type Timed,
} from './guide.js';

const HOUR = 3_600_000;
const MIN = 60_000;
const T0 = Date.UTC(2026, 7, 22, 18, 0, 0);

/** A valid channel id: the n-th of a made-up series. */
function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

function ids(count: number): string[] {
  return Array.from({ length: count }, (_, i) => uuid(i + 1));
}

/** The AppError a call throws, for its code and message. */
function errorOf(f: () => unknown): { code: string; status: number; message: string } {
  try {
    f();
  } catch (error) {
    return error as { code: string; status: number; message: string };
  }
  throw new Error('expected an error');
}

function invalid(query: RawQuery, ...mentions: string[]): void {
  const error = errorOf(() => parseGuideQuery(query));
  expect(error.code, JSON.stringify(query)).toBe('INVALID_PARAMETERS');
  expect(error.status).toBe(400);
  for (const text of mentions) expect(error.message, JSON.stringify(query)).toContain(text);
}

function p(id: string, startMs: number | null, stopMs: number | null): Timed {
  return { id, startMs, stopMs };
}

function idsOf(programmes: readonly Timed[]): string[] {
  return programmes.map((x) => x.id);
}

describe('guide query: channel selection', () => {
  it('reads a country in its stored upper-case form, with the default page', () => {
    expect(parseGuideQuery({ country: 'uk' })).toEqual({
      selection: { kind: 'country', country: 'UK', limit: MAX_PAGE_CHANNELS, offset: 0 },
      from: { kind: 'now' },
      hours: DEFAULT_GUIDE_HOURS,
    });
  });

  it('refuses an invalid country code with INVALID_COUNTRY', () => {
    for (const country of ['', 'u_k', 'A'.repeat(17)]) {
      expect(errorOf(() => parseGuideQuery({ country })).code, country).toBe('INVALID_COUNTRY');
    }
  });

  it('wants exactly one of country and channels, and says what to send', () => {
    invalid({}, 'country=', 'channels=');
    invalid({ hours: '3' }, 'country=', 'channels=');
    invalid({ country: 'UK', channels: uuid(1) }, 'either country or channels');
    // Both given is refused even when one of them is itself invalid.
    invalid({ country: 'u_k', channels: '' }, 'either country or channels');
  });

  it('reads channel ids lower-case, each once, in the order first given', () => {
    const a = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE';
    const query = parseGuideQuery({
      channels: `${uuid(3)},${a},${uuid(1)},${a.toLowerCase()},${uuid(3)}`,
    });
    expect(query.selection).toEqual({
      kind: 'channels',
      ids: [uuid(3), a.toLowerCase(), uuid(1)],
    });
  });

  it('accepts 1 to 100 distinct ids; duplicates do not count against the limit', () => {
    expect(parseGuideQuery({ channels: uuid(1) }).selection).toEqual({
      kind: 'channels',
      ids: [uuid(1)],
    });
    const hundred = ids(MAX_GUIDE_CHANNELS);
    expect(parseGuideQuery({ channels: hundred.join(',') }).selection).toEqual({
      kind: 'channels',
      ids: hundred,
    });
    const repeated = [...hundred, ...hundred.map((id) => id.toUpperCase())].join(',');
    expect(parseGuideQuery({ channels: repeated }).selection).toEqual({
      kind: 'channels',
      ids: hundred,
    });
    invalid({ channels: ids(MAX_GUIDE_CHANNELS + 1).join(',') }, 'more than 100');
  });

  it('refuses a blank value and empty entries, naming the problem', () => {
    invalid({ channels: '' }, 'channels is empty');
    invalid({ channels: `${uuid(1)},,${uuid(2)}` }, 'empty entry (number 2)');
    invalid({ channels: `${uuid(1)},` }, 'empty entry (number 2)');
    invalid({ channels: `,${uuid(1)}` }, 'empty entry (number 1)');
    invalid({ channels: ',' }, 'empty entry');
  });

  it('refuses an id that is not a UUID, naming its position', () => {
    for (const bad of [
      'bbc1.uk',
      `${uuid(1)}0`,
      uuid(1).replace(/-/g, ''),
      ` ${uuid(1)}`,
      `{${uuid(1)}}`,
      uuid(1).replace('0', 'g'),
    ]) {
      invalid({ channels: `${uuid(9)},${bad}` }, 'entry number 2', 'UUID');
    }
  });

  it('pages a country with limit 1 to 500 and offset 0 to 1,000,000, digits only', () => {
    const page = (limit?: string, offset?: string) =>
      parseGuideQuery({ country: 'DE', limit, offset }).selection;
    expect(page('1', '0')).toEqual({ kind: 'country', country: 'DE', limit: 1, offset: 0 });
    expect(page('500', '1000000')).toEqual({
      kind: 'country',
      country: 'DE',
      limit: 500,
      offset: 1_000_000,
    });
    expect(page('050')).toMatchObject({ limit: 50, offset: 0 });
    expect(page(undefined, '20')).toMatchObject({ limit: 500, offset: 20 });
    for (const limit of ['0', '501', '', '+1', ' 1', '1 ', '1.0', '1e2', '-1', 'ten', '0x10']) {
      invalid({ country: 'DE', limit }, 'Invalid limit', '1 to 500');
    }
    for (const offset of ['-1', '1000001', '', '+0', '0.5', '1e3', '99999999999999999999']) {
      invalid({ country: 'DE', offset }, 'Invalid offset');
    }
  });

  it('refuses limit and offset with channels', () => {
    invalid({ channels: uuid(1), limit: '10' }, "limit and offset page a country's channels");
    invalid({ channels: uuid(1), offset: '0' }, "limit and offset page a country's channels");
  });

  it('ignores unknown parameters', () => {
    expect(parseGuideQuery({ country: 'FR', at: 'garbage', days: 'x', key: 'y' })).toEqual(
      parseGuideQuery({ country: 'FR' }),
    );
    expect(parseNowQuery({ country: 'FR', from: 'garbage', hours: '99' })).toEqual(
      parseNowQuery({ country: 'FR' }),
    );
  });
});

describe('guide query: window', () => {
  it('reads hours 1 to 48, default 3, digits only, and names hours when invalid', () => {
    expect(parseGuideQuery({ country: 'UK' }).hours).toBe(3);
    expect(parseGuideQuery({ country: 'UK', hours: '1' }).hours).toBe(1);
    expect(parseGuideQuery({ country: 'UK', hours: '48' }).hours).toBe(48);
    expect(parseGuideQuery({ country: 'UK', hours: '012' }).hours).toBe(12);
    for (const hours of ['0', '49', '', '+3', ' 3', '3.0', '3e0', '-3', 'three']) {
      invalid({ country: 'UK', hours }, 'Invalid hours', '1 to 48');
    }
  });

  it('reads from: absent or now in any case is the time of the request', () => {
    for (const from of [undefined, 'now', 'NOW', 'Now']) {
      expect(parseGuideQuery({ country: 'UK', from }).from).toEqual({ kind: 'now' });
    }
    expect(parseGuideQuery({ country: 'UK', from: '20260822180000 +0000' }).from).toEqual({
      kind: 'at',
      ms: T0,
    });
  });

  it('names from (and at) and the accepted forms when the instant is invalid', () => {
    for (const from of ['', 'today', '20260822180000', '2026-08-22T18:00:00', 'nowish']) {
      invalid({ country: 'UK', from }, 'Invalid from', 'YYYYMMDDHHMMSS +HHMM', 'ISO 8601');
    }
    const error = errorOf(() => parseNowQuery({ channels: uuid(1), at: '20260822180000  0200' }));
    expect(error.code).toBe('INVALID_PARAMETERS');
    expect(error.message).toContain('Invalid at');
    expect(error.message).toContain('%2B');
  });

  it('resolves the window [from, from + hours), the request time floored to whole seconds', () => {
    const at = parseGuideQuery({ country: 'UK', from: '2026-08-22T20:00:00+02:00', hours: '2' });
    expect(guideWindow(at, 0)).toEqual({ fromMs: T0, toMs: T0 + 2 * HOUR });
    const now = parseGuideQuery({ country: 'UK' });
    expect(guideWindow(now, T0 + 1999)).toEqual({ fromMs: T0 + 1000, toMs: T0 + 1000 + 3 * HOUR });
  });
});

describe('now query', () => {
  it('reads the selection as the guide does, and at', () => {
    expect(parseNowQuery({ channels: uuid(1).toUpperCase() })).toEqual({
      selection: { kind: 'channels', ids: [uuid(1)] },
      at: { kind: 'now' },
    });
    expect(
      parseNowQuery({ country: 'pl', limit: '2', offset: '4', at: '2026-08-22T18:00Z' }),
    ).toEqual({
      selection: { kind: 'country', country: 'PL', limit: 2, offset: 4 },
      at: { kind: 'at', ms: T0 },
    });
    expect(errorOf(() => parseNowQuery({})).code).toBe('INVALID_PARAMETERS');
    expect(errorOf(() => parseNowQuery({ channels: uuid(1), limit: '1' })).message).toContain(
      'limit and offset',
    );
    expect(
      errorOf(() => parseNowQuery({ country: 'UK', at: '2026-02-30T00:00Z' })).message,
    ).toContain('Invalid at');
  });
});

describe('instants', () => {
  it('resolves now to the request time floored to whole seconds, and at as given', () => {
    expect(resolveInstant({ kind: 'now' }, T0 + 999)).toBe(T0);
    expect(resolveInstant({ kind: 'now' }, T0)).toBe(T0);
    expect(resolveInstant({ kind: 'at', ms: T0 - HOUR }, T0 + 5)).toBe(T0 - HOUR);
  });

  it('reads the XMLTV form with its offset', () => {
    expect(parseInstant('20260822180000 +0000')).toBe(T0);
    expect(parseInstant('20260822200000 +0200')).toBe(T0);
    expect(parseInstant('20260822123000 -0530')).toBe(T0);
    expect(parseInstant('20260823085900 +1459')).toBe(T0);
    expect(parseInstant('20260822180000 -0000')).toBe(T0);
    expect(parseInstant('20240229235959 +0000')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59));
    expect(parseInstant('10000101000000 +0000')).toBe(Date.UTC(1000, 0, 1));
    expect(parseInstant('99991231235959 +0000')).toBe(Date.UTC(9999, 11, 31, 23, 59, 59));
  });

  it('refuses XMLTV texts that are not exactly the 14 digits, one space and the offset', () => {
    for (const text of [
      '20260822180000',
      '202608221800 +0000',
      '20260822180000+0000',
      '20260822180000  +0000',
      ' 20260822180000 +0000',
      '20260822180000 +0000 ',
      '20260822180000 +00:00',
      '20260822180000 +000',
      '20260822180000 UTC',
      '20260822180000 Z',
      '20260822180000 0200',
    ]) {
      expect(parseInstant(text), text).toBeNull();
    }
  });

  it('refuses impossible XMLTV values', () => {
    for (const text of [
      '20260230120000 +0000', // Feb 30
      '20250229120000 +0000', // not a leap year
      '20260822240000 +0000', // 24:00
      '20260822186000 +0000',
      '20260822180060 +0000', // no leap seconds
      '20261301000000 +0000',
      '20260001000000 +0000',
      '20260800000000 +0000',
      '20260822180000 +1500', // offsets end at 14:59
      '20260822180000 -1500',
      '20260822180000 +0160',
      '09991231235959 +0000', // years 1000 to 9999
    ]) {
      expect(parseInstant(text), text).toBeNull();
    }
  });

  it('reads ISO 8601 with Z or an offset, in either offset form and any case of T and Z', () => {
    expect(parseInstant('2026-08-22T18:00:00Z')).toBe(T0);
    expect(parseInstant('2026-08-22t18:00:00z')).toBe(T0);
    expect(parseInstant('2026-08-22T18:00Z')).toBe(T0);
    expect(parseInstant('2026-08-22T20:00:00+02:00')).toBe(T0);
    expect(parseInstant('2026-08-22T20:00:00+0200')).toBe(T0);
    expect(parseInstant('2026-08-22T12:30-05:30')).toBe(T0);
    expect(parseInstant('2026-08-23T08:59:00+14:59')).toBe(T0);
    expect(parseInstant('2026-08-22T18:00:00-00:00')).toBe(T0);
  });

  it('truncates a fraction to whole seconds (floor), before and after 1970', () => {
    expect(parseInstant('2026-08-22T18:00:00.999Z')).toBe(T0);
    expect(parseInstant('2026-08-22T18:00:01.5+00:00')).toBe(T0 + 1000);
    expect(parseInstant('2026-08-22T18:00:00.123456789123Z')).toBe(T0);
    expect(parseInstant('1969-12-31T23:59:59.999Z')).toBe(-1000);
  });

  it('refuses ISO texts without an offset, partial or malformed', () => {
    for (const text of [
      '2026-08-22T18:00:00', // local time: ambiguous
      '2026-08-22T18:00',
      '2026-08-22',
      '2026-08-22Z',
      '2026-08-22 18:00:00Z',
      '2026-08-22T18Z',
      '2026-08-22T18:00:00.Z',
      '2026-08-22T18:00.5Z',
      '2026-8-22T18:00:00Z',
      '20260822T180000Z',
      '2026-08-22T18:00:00+02',
      '2026-08-22T18:00:00 02:00', // an unencoded + arrives as a space
      '2026-08-22T18:00:00+2:00',
      '+02026-08-22T18:00:00Z',
      '2026-08-22T18:00:00Zjunk',
      '',
      'now',
    ]) {
      expect(parseInstant(text), text).toBeNull();
    }
  });

  it('refuses impossible ISO values', () => {
    for (const text of [
      '2026-02-30T12:00:00Z',
      '2026-02-29T12:00:00Z',
      '2026-08-22T24:00:00Z',
      '2026-08-22T23:60:00Z',
      '2026-08-22T23:59:60Z',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-08-32T00:00:00Z',
      '2026-08-22T18:00:00+15:00',
      '2026-08-22T18:00:00-15:00',
      '2026-08-22T18:00:00+01:60',
      '0999-12-31T23:59:59Z',
    ]) {
      expect(parseInstant(text), text).toBeNull();
    }
    expect(parseInstant('2024-02-29T12:00:00Z')).toBe(Date.UTC(2024, 1, 29, 12));
  });
});

describe('inWindow', () => {
  const FROM = T0;
  const TO = T0 + 3 * HOUR;

  it('keeps what starts before to and stops after from', () => {
    const programmes = [
      p('ends-at-from', FROM - HOUR, FROM),
      p('running-at-from', FROM - 30 * MIN, FROM + 30 * MIN),
      p('zero-at-from', FROM, FROM),
      p('starts-at-from', FROM, FROM + HOUR),
      p('zero-inside', FROM + HOUR, FROM + HOUR),
      p('inside', FROM + HOUR, FROM + 2 * HOUR),
      p('runs-past-to', TO - MIN, TO + HOUR),
      p('zero-at-to', TO, TO),
      p('starts-at-to', TO, TO + HOUR),
      p('after', TO + HOUR, TO + 2 * HOUR),
    ];
    expect(idsOf(inWindow(programmes, FROM, TO))).toEqual([
      'running-at-from',
      'starts-at-from',
      'inside',
      'zero-inside',
      'runs-past-to',
    ]);
  });

  it('keeps a programme spanning the whole window', () => {
    expect(idsOf(inWindow([p('long', FROM - HOUR, TO + HOUR)], FROM, TO))).toEqual(['long']);
  });

  it('leaves out programmes whose start or stop did not parse', () => {
    const programmes = [
      p('no-start', null, FROM + HOUR),
      p('no-stop', FROM + HOUR, null),
      p('neither', null, null),
      p('ok', FROM + HOUR, FROM + 2 * HOUR),
    ];
    expect(idsOf(inWindow(programmes, FROM, TO))).toEqual(['ok']);
  });

  it('keeps overlapping programmes, ordered by start then id, the input objects themselves', () => {
    const b = { ...p('b', FROM, FROM + 2 * HOUR), title: 'B' };
    const programmes = [
      p('a', FROM - HOUR, FROM + HOUR),
      b,
      p('c', FROM, FROM + HOUR),
      p('d', FROM + 30 * MIN, FROM + 90 * MIN),
    ];
    const kept = inWindow(programmes, FROM, TO);
    expect(idsOf(kept)).toEqual(['a', 'b', 'c', 'd']);
    expect(kept[1]).toBe(b);
  });

  it('orders input that is not in (start, id) order', () => {
    const programmes = [
      p('late', FROM + 2 * HOUR, FROM + 3 * HOUR),
      p('y', FROM, FROM + HOUR),
      p('x', FROM, FROM + HOUR),
      p('early', FROM - HOUR, FROM + HOUR),
    ];
    expect(idsOf(inWindow(programmes, FROM, TO))).toEqual(['early', 'x', 'y', 'late']);
  });

  it('returns nothing for no programmes, and does not change its input', () => {
    expect(inWindow([], FROM, TO)).toEqual([]);
    const programmes = Object.freeze([p('b', FROM, FROM + HOUR), p('a', FROM, FROM + HOUR)]);
    expect(idsOf(inWindow(programmes, FROM, TO))).toEqual(['a', 'b']);
    expect(idsOf(programmes)).toEqual(['b', 'a']);
  });
});

describe('nowAndNext', () => {
  const AT = T0;

  it('finds the programme running at at and the first to start after it', () => {
    const programmes = [
      p('past', AT - 2 * HOUR, AT - HOUR),
      p('now', AT - HOUR, AT + HOUR),
      p('next', AT + HOUR, AT + 2 * HOUR),
      p('later', AT + 2 * HOUR, AT + 3 * HOUR),
    ];
    const answer = nowAndNext(programmes, AT);
    expect(answer.now?.id).toBe('now');
    expect(answer.next?.id).toBe('next');
  });

  it('counts a programme starting exactly at at as now, and one stopping at at as not', () => {
    const programmes = [p('ended', AT - HOUR, AT), p('starts', AT, AT + HOUR)];
    expect(nowAndNext(programmes, AT)).toEqual({ now: programmes[1], next: null });
    expect(nowAndNext(programmes, AT - 1)).toEqual({ now: programmes[0], next: programmes[1] });
  });

  it('of overlapping programmes takes the latest start, then the greatest id', () => {
    const programmes = [
      p('film', AT - 2 * HOUR, AT + HOUR),
      p('news-b', AT - 10 * MIN, AT + 5 * MIN),
      p('news-a', AT - 10 * MIN, AT + 5 * MIN),
      p('short', AT - 30 * MIN, AT + MIN),
    ];
    expect(nowAndNext(programmes, AT).now?.id).toBe('news-b');
    // When the latest-starting ones have ended, the earlier overlapping one is on again.
    expect(nowAndNext(programmes, AT + 10 * MIN).now?.id).toBe('film');
  });

  it('takes the first of equal next starts by id', () => {
    const programmes = [p('z', AT + HOUR, AT + 2 * HOUR), p('m', AT + HOUR, AT + 2 * HOUR)];
    expect(nowAndNext(programmes, AT).next?.id).toBe('m');
  });

  it('never counts a zero-length programme at at, as now or next', () => {
    const programmes = [p('zero', AT, AT), p('after', AT + HOUR, AT + 2 * HOUR)];
    expect(nowAndNext(programmes, AT)).toEqual({ now: null, next: programmes[1] });
    // Before it, it is next.
    expect(nowAndNext(programmes, AT - 1).next?.id).toBe('zero');
  });

  it('never counts programmes whose start or stop did not parse', () => {
    const programmes = [
      p('no-stop-now', AT - HOUR, null),
      p('no-start', null, AT + HOUR),
      p('no-stop-next', AT + HOUR, null),
    ];
    expect(nowAndNext(programmes, AT)).toEqual({ now: null, next: null });
  });

  it('answers nothing with no programmes, only past ones, or only future ones', () => {
    expect(nowAndNext([], AT)).toEqual({ now: null, next: null });
    const past = [p('a', AT - 2 * HOUR, AT - HOUR), p('b', AT - HOUR, AT)];
    expect(nowAndNext(past, AT)).toEqual({ now: null, next: null });
    const future = [p('c', AT + HOUR, AT + 2 * HOUR), p('d', AT + 2 * HOUR, AT + 3 * HOUR)];
    expect(nowAndNext(future, AT)).toEqual({ now: null, next: future[0] });
  });

  it('answers the same whatever the order of the input', () => {
    const programmes = [
      p('c', AT + HOUR, AT + 2 * HOUR),
      p('b', AT - MIN, AT + MIN),
      p('a', AT - HOUR, AT + HOUR),
      p('d', AT + HOUR, AT + 2 * HOUR),
    ];
    const answer = nowAndNext(programmes, AT);
    expect(answer.now?.id).toBe('b');
    expect(answer.next?.id).toBe('c');
    expect(nowAndNext([...programmes].reverse(), AT)).toEqual(answer);
  });
});

describe('nowAndNextUntil', () => {
  const AT = T0;

  it('is the nearest start after at or stop of a programme running at at', () => {
    const programmes = [
      p('past', AT - 2 * HOUR, AT - HOUR),
      p('now', AT - HOUR, AT + 20 * MIN),
      p('next', AT + 30 * MIN, AT + HOUR),
    ];
    expect(nowAndNextUntil(programmes, AT)).toBe(AT + 20 * MIN);
    expect(nowAndNextUntil(programmes, AT + 20 * MIN)).toBe(AT + 30 * MIN);
    expect(nowAndNextUntil(programmes, AT + 30 * MIN)).toBe(AT + HOUR);
    expect(nowAndNextUntil(programmes, AT + HOUR)).toBeNull();
  });

  it('counts a zero-length programme after at, and ignores unparsed times', () => {
    expect(nowAndNextUntil([p('zero', AT + MIN, AT + MIN)], AT)).toBe(AT + MIN);
    expect(nowAndNextUntil([p('zero', AT, AT)], AT)).toBeNull();
    expect(nowAndNextUntil([p('x', null, AT + MIN), p('y', AT + MIN, null)], AT)).toBeNull();
    expect(nowAndNextUntil([], AT)).toBeNull();
  });
});

describe('pageOf', () => {
  const all = ['a', 'b', 'c', 'd', 'e'];

  it('slices from offset and gives the next offset while channels remain', () => {
    expect(pageOf(all, 2, 0)).toEqual({ page: ['a', 'b'], next: 2 });
    expect(pageOf(all, 2, 2)).toEqual({ page: ['c', 'd'], next: 4 });
    expect(pageOf(all, 2, 4)).toEqual({ page: ['e'], next: null });
    expect(pageOf(all, 1, 3)).toEqual({ page: ['d'], next: 4 });
  });

  it('has no next page when the page ends exactly at the end', () => {
    expect(pageOf(all, 5, 0)).toEqual({ page: all, next: null });
    expect(pageOf(all, 4, 1)).toEqual({ page: ['b', 'c', 'd', 'e'], next: null });
    expect(pageOf(all, 500, 0)).toEqual({ page: all, next: null });
  });

  it('answers an empty page past the end, and for no channels', () => {
    expect(pageOf(all, 2, 5)).toEqual({ page: [], next: null });
    expect(pageOf(all, 2, 1_000_000)).toEqual({ page: [], next: null });
    expect(pageOf([], 500, 0)).toEqual({ page: [], next: null });
  });
});
