import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { emptyDetails } from './programme-details.js';
import {
  compareSearchKeys,
  decodeCursor,
  encodeCursor,
  MAX_WORD_LENGTH,
  parseProgrammeSearchQuery,
  programmeSearchText,
  searchTermsOf,
  searchWindow,
  searchWordsOf,
  foldLetters,
  refoldedSearchText,
} from './programme-search.js';

const DAY = 86_400_000;
const ID = 'dd41cb78-ddbb-5222-af7d-7173a2d56458';

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

describe('search words', () => {
  it('fold case, accents and compatibility forms, and split at anything not a letter or digit', () => {
    expect(searchWordsOf('Télé-Journal: ÉTÉ 2026!')).toEqual(['tele', 'journal', 'ete', '2026']);
    expect(searchWordsOf('Ǆemal İstanbul ﬁlm ²')).toEqual(['dzemal', 'istanbul', 'film', '2']);
    expect(searchWordsOf('東京 ニュース')).toEqual(['東京', 'ニュース']);
    expect(searchWordsOf('  ,;  ')).toEqual([]);
    expect(searchWordsOf('x'.repeat(100))).toEqual(['x'.repeat(MAX_WORD_LENGTH)]);
    // ASCII text takes a shorter way to the same words as the full folding.
    expect(searchWordsOf('The NEWS at 10, _live_ from A&E\t(HD)')).toEqual(
      searchWordsOf('The NEWS at 10, _live_ from A&E\t(HD)\u00a0é').slice(0, -1),
    );
    expect(searchWordsOf('The NEWS at 10, _live_')).toEqual(['the', 'news', 'at', '10', 'live']);
  });

  it('fold the letters no decomposition takes apart, as unaccent does: a stroke, a ligature', () => {
    expect(searchWordsOf('Łódź Ørsted STRAẞE Straße Æble Œuvre Đorđe Þór Kırmızı Ħamrun')).toEqual([
      'lodz',
      'orsted',
      'strasse',
      'strasse',
      'aeble',
      'oeuvre',
      'dorde',
      'thor',
      'kirmizi',
      'hamrun',
    ]);
    // A search text stored before, folded again, is the one an ingest makes now: what the
    // migrations rely on (words that became the same kept once, where the first was).
    const v1 = { title: 'Große Straße', desc: 'Die grosse Łódź-Reise', categories: ['Reise'] };
    const stored = 'große straße die grosse łodz reise';
    expect(refoldedSearchText(stored)).toBe(programmeSearchText(v1, emptyDetails()));
    expect(refoldedSearchText(stored)).toBe('grosse strasse die lodz reise');
    expect(refoldedSearchText('news at six')).toBe('news at six');
    expect(foldLetters('news at six')).toBe('news at six');
  });

  it('of a programme: its titles, sub-titles, descriptions, categories and credit names, once each', () => {
    const details = {
      ...emptyDetails(),
      subTitle: 'Part One',
      titles: [
        { value: 'Star Trek', lang: '' },
        { value: 'Raumschiff', lang: 'de' },
      ],
      descs: [{ value: 'Space, the final frontier', lang: '' }],
      categories: ['Sci-fi'],
      keywords: ['ignored'],
      credits: [{ role: 'actor' as const, name: 'Zoë Ångström', character: 'Spock' }],
    };
    const text = programmeSearchText(
      { title: 'Star Trek', desc: 'Space, the final frontier', categories: ['Sci-fi'] },
      details,
    );
    expect(text).toBe('star trek part one space the final frontier raumschiff sci fi zoe angstrom');
  });
});

describe('a search query', () => {
  it('takes every word, the last as a prefix; blank is null', () => {
    expect(searchTermsOf(' Star  TRE ')).toEqual({ words: ['star'], prefix: 'tre' });
    expect(searchTermsOf('news news')).toEqual({ words: ['news'], prefix: 'news' });
    expect(searchTermsOf('  ')).toBeNull();
    expect(searchTermsOf('?!')).toBeNull();
    expect(searchTermsOf(undefined)).toBeNull();
    // Cut to 200 characters after trimming: the 201st is not read.
    expect(searchTermsOf(`${'a '.repeat(100)}zz`)?.prefix).toBe('a');
  });

  it('parses filters, window and limit by the v1 rules', () => {
    const q = parseProgrammeSearchQuery({
      q: 'news',
      country: 'uk',
      channels: `${ID.toUpperCase()},${ID}`,
      from: '2026-08-22T10:00:00Z',
      to: '20260823100000 +0000',
      limit: '10',
    });
    expect(q).toMatchObject({
      country: 'UK',
      channels: [ID],
      fromMs: Date.UTC(2026, 7, 22, 10),
      toMs: Date.UTC(2026, 7, 23, 10),
      limit: 10,
      after: null,
    });
    expect(parseProgrammeSearchQuery({ country: ' ' })).toMatchObject({
      terms: null,
      country: null,
      limit: 50,
    });
    expect(codeOf(() => parseProgrammeSearchQuery({ country: 'u k' }))).toBe('INVALID_COUNTRY');
    for (const bad of [
      { limit: '0' },
      { limit: '201' },
      { limit: '+5' },
      { from: 'yesterday' },
      { to: 'now' },
      { channels: '' },
      { from: '2026-08-01T00:00:00Z', to: '2026-09-01T00:00:01Z' },
      { from: '2026-08-01T00:00:00Z', to: '2026-08-01T00:00:00Z' },
      { cursor: 'abc' },
    ]) {
      expect(codeOf(() => parseProgrammeSearchQuery(bad))).toBe('INVALID_PARAMETERS');
    }
  });

  it('keeps every digit of a fraction: the window and its checks are exact, not floats', () => {
    const noon = Date.UTC(2026, 7, 22, 12);
    const window = (from: string, to: string) => {
      const q = parseProgrammeSearchQuery({ from, to });
      return [q.fromMs, q.toMs];
    };
    // 20 nines: a float of milliseconds would round it to the next second, an empty window.
    expect(window('2026-08-22T11:59:59.99999999999999999999Z', '2026-08-22T12:00:00Z')).toEqual([
      noon,
      noon,
    ]);
    // A fraction too small for a float still moves `from` past the second it follows.
    expect(window('2026-08-22T12:00:00.0000000000000000001Z', '2026-08-22T12:00:01Z')).toEqual([
      noon + 1000,
      noon + 1000,
    ]);
    // Trailing zeros are no fraction.
    expect(window('2026-08-22T12:00:00.000Z', '2026-08-22T12:00:01.0Z')).toEqual([
      noon,
      noon + 1000,
    ]);
    // 31 days and the least fraction is over; 31 days with equal fractions is not.
    const longest = { from: '2026-08-01T00:00:00.25Z', to: '2026-09-01T00:00:00.250Z' };
    expect(codeOf(() => parseProgrammeSearchQuery(longest))).toBeNull();
    expect(
      codeOf(() => parseProgrammeSearchQuery({ ...longest, to: '2026-09-01T00:00:00.2500001Z' })),
    ).toBe('INVALID_PARAMETERS');
    // `to` must be after `from`, however little.
    expect(
      codeOf(() =>
        parseProgrammeSearchQuery({ from: '2026-08-22T12:00:00.5Z', to: '2026-08-22T12:00:00.5Z' }),
      ),
    ).toBe('INVALID_PARAMETERS');
    expect(
      codeOf(() =>
        parseProgrammeSearchQuery({
          from: '2026-08-22T12:00:00.49999999999999999999Z',
          to: '2026-08-22T12:00:00.5Z',
        }),
      ),
    ).toBeNull();
  });

  it('defaults to now (whole seconds) and 14 days; refuses a `to` too far from now', () => {
    const now = Date.UTC(2026, 7, 22, 10, 0, 0, 750);
    const floored = Date.UTC(2026, 7, 22, 10);
    expect(searchWindow({ fromMs: null, toMs: null }, now)).toEqual({
      fromMs: floored,
      toMs: floored + 14 * DAY,
    });
    expect(codeOf(() => searchWindow({ fromMs: null, toMs: floored + 32 * DAY }, now))).toBe(
      'INVALID_PARAMETERS',
    );
    expect(codeOf(() => searchWindow({ fromMs: null, toMs: floored - 1 }, now))).toBe(
      'INVALID_PARAMETERS',
    );
  });
});

describe('the cursor', () => {
  it('round-trips a key for the same query and refuses another query’s or a forged one', () => {
    const query = parseProgrammeSearchQuery({ q: 'star tre', country: 'UK' });
    const key = { startMs: Date.UTC(2026, 7, 22), nameKey: 'télé', id: '4611686018427387904' };
    const cursor = encodeCursor(key, query.fingerprint);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(
      parseProgrammeSearchQuery({ q: ' STAR  TRE', country: 'uk', limit: '5', cursor }).after,
    ).toEqual(key);
    for (const other of [
      { q: 'star trek', country: 'UK' },
      { q: 'star tre' },
      { q: 'star tre', country: 'UK', from: '2026-08-22T00:00:00Z' },
    ]) {
      expect(codeOf(() => parseProgrammeSearchQuery({ ...other, cursor }))).toBe(
        'INVALID_PARAMETERS',
      );
    }
    const forged = Buffer.from(JSON.stringify([1, query.fingerprint, 1.5, 'x', '1'])).toString(
      'base64url',
    );
    expect(codeOf(() => decodeCursor(forged, query.fingerprint))).toBe('INVALID_PARAMETERS');
  });

  it('orders keys by start, name key, then id', () => {
    const keys = [
      { startMs: 2, nameKey: 'a', id: '1' },
      { startMs: 1, nameKey: 'b', id: '1' },
      { startMs: 1, nameKey: 'a', id: '2' },
      { startMs: 1, nameKey: 'a', id: '10' },
    ];
    expect([...keys].sort(compareSearchKeys)).toEqual([keys[3], keys[2], keys[1], keys[0]]);
  });
});
