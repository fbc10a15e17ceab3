import { parseCountryCode } from './country.js';
import { errors } from './errors.js';
import {
  compareExactSpan,
  parseChannelIds,
  parseExactInstant,
  wholeSecondUp,
  type ExactInstant,
  type RawQuery,
} from './guide.js';
import type { ProgrammeDetails, V1Texts } from './programme-details.js';
import { MAX_SEARCH_LENGTH } from './search-folding.js';
import { sha256Hex } from './sha256.js';

/**
 * The rules of `GET /api/v1/programmes/search` (issue 23): which words a programme is found by,
 * what a query asks for, and the cursor of its pages. Pure: the store matches the words, the
 * route reads and answers.
 */

export const DEFAULT_SEARCH_LIMIT = 50;
export const MAX_SEARCH_LIMIT = 200;
export const DEFAULT_SEARCH_DAYS = 14;
export const MAX_SEARCH_DAYS = 31;
/**
 * Longer words are cut to this many characters, in the catalogue and in queries alike: a
 * PostgreSQL lexeme holds at most 2047 bytes, and no real word is this long.
 */
export const MAX_WORD_LENGTH = 64;

const DAY_MS = 86_400_000;
const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;
// Any code point below 128 (control characters too): none of them changes under NFKD.
const ASCII = /^[^\u0080-\uffff]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

/**
 * Lower-case Latin letters with a stroke, and ligatures, which no Unicode decomposition takes
 * apart, as search folds them (as PostgreSQL's `unaccent` does): "lodz" finds "Łódź", "orsted"
 * "Ørsted", "strasse" "Straße", "kirmizi" "Kırmızı". Catalogue file version 9 and PostgreSQL
 * migration 16 folded the words stored before.
 */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ŧ: 't',
  ı: 'i',
};
/** The letters LETTER_FOLDS folds, for the migrations that fold the words stored before. */
export const FOLDED_LETTER_LIST: readonly string[] = Object.keys(LETTER_FOLDS);
const FOLDED_LETTERS = new RegExp(`[${FOLDED_LETTER_LIST.join('')}]`, 'g');

/** `text` (lower case) with LETTER_FOLDS' letters folded; the same text when it has none. */
export function foldLetters(text: string): string {
  return text.replace(FOLDED_LETTERS, (letter) => LETTER_FOLDS[letter] ?? letter);
}

/**
 * A search text stored before LETTER_FOLDS (programmeSearchText's distinct words, in order) as
 * programmeSearchText makes it now: each word folded and cut again, and words that became the
 * same ("große" and "grosse") kept once, where the first was.
 */
export function refoldedSearchText(words: string): string {
  return [...new Set(words.split(' ').map((word) => cutWord(foldLetters(word))))].join(' ');
}

/**
 * The words of a text as search sees them: compatibility decomposition, lower case, marks
 * removed ("Télé" and "TELE" are both "tele") and LETTER_FOLDS' letters folded, then the runs of
 * letters and digits, each cut to MAX_WORD_LENGTH. Lower-cased before the marks go: "İ"
 * lower-cases to "i" and a mark.
 */
export function searchWordsOf(text: string): string[] {
  // ASCII text (most of a guide) folds to itself lower-cased, with no normalisation to do: the
  // same words, found three times as fast (runs for every text of every programme at ingest).
  if (ASCII.test(text)) return asciiWordsOf(text);
  // Other text folds a character at a time (charFold), without normalising the whole: those
  // normalisations cost a French or German description 10-20 µs and were most of an ingest's
  // parse of such a guide (searchWordsOf 3.2 s of 7.4 s busy for 125 MB; `node --cpu-prof
  // bench/ingest.mjs --child none FILE`, bench/INGEST.md). A character that does not fold
  // alone sends the whole text the long way. Property tests compare the two ways.
  let folded = '';
  let from = 0;
  let onlyAscii = true;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x80) continue;
    const fold = charFold(code);
    if (fold === null) return foldedWordsOf(text);
    if (onlyAscii && !ASCII.test(fold)) onlyAscii = false;
    folded += text.slice(from, at).toLowerCase() + fold;
    from = at + 1;
  }
  folded += text.slice(from).toLowerCase();
  return wordsIn(folded, onlyAscii ? ASCII_WORD : WORD);
}

/** searchWordsOf of ASCII text. */
function asciiWordsOf(text: string): string[] {
  return wordsIn(text.toLowerCase(), ASCII_WORD);
}

/** searchWordsOf of any text, folded whole by the rule (see searchWordsOf). */
export function foldedWordsOf(text: string): string[] {
  return wordsIn(foldWhole(text), WORD);
}

/** The words (`pattern`'s matches) of folded text, each cut to MAX_WORD_LENGTH. */
function wordsIn(folded: string, pattern: RegExp): string[] {
  return (folded.match(pattern) ?? []).map(cutWord);
}

function foldWhole(text: string): string {
  const folded = text.normalize('NFKD').toLowerCase().normalize('NFKD').replace(MARKS, '');
  return foldLetters(folded).normalize('NFC');
}

/**
 * Characters whose fold is not theirs alone: a surrogate (half of a character), a capital
 * sigma (lower-cased by what follows it), and Hangul jamo, conjoining or compatibility (NFC
 * composes a syllable of the jamo beside each other).
 */
const FOLDS_IN_CONTEXT =
  /[\ud800-\udfff\u03a3\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\ud7b0-\ud7ff\uffa0-\uffdc]/;

/** Folds of the characters beyond ASCII met so far, by code; null: it folds in context. */
const charFolds = new Map<number, string | null>();

/**
 * The fold of the character `code` (U+0080-U+FFFF) where it folds alone, else null. A text of
 * such characters folds to their folds one after the other: decomposition reorders only marks,
 * which folding removes, so NFC composes nothing across two of them but jamo; lower-casing
 * looks at the context only for a capital sigma (FOLDS_IN_CONTEXT).
 */
function charFold(code: number): string | null {
  let fold = charFolds.get(code);
  if (fold === undefined) {
    const char = String.fromCharCode(code);
    // Its decomposition too: "Ϲ" (U+03F9) decomposes to a capital sigma, lower-cased by what
    // precedes it (a property test found "ႠϹ" folded to "ⴀσ" here and "ⴀς" whole).
    const inContext = FOLDS_IN_CONTEXT.test(char) || FOLDS_IN_CONTEXT.test(char.normalize('NFKD'));
    const whole = inContext ? null : foldWhole(char);
    fold = whole === null || FOLDS_IN_CONTEXT.test(whole) ? null : whole;
    charFolds.set(code, fold);
  }
  return fold;
}

function cutWord(word: string): string {
  if (word.length <= MAX_WORD_LENGTH) return word;
  return Array.from(word).slice(0, MAX_WORD_LENGTH).join('');
}

/**
 * What a programme is found by, as the catalogue stores it: each distinct word of its titles,
 * sub-titles and descriptions (every language), categories and credits' names, once, separated
 * by single spaces. Both engines index these words as they are, so their answers match.
 */
export function programmeSearchText(v1: V1Texts, details: ProgrammeDetails): string {
  return searchTextOf(searchedTextsOf(v1, details));
}

/**
 * The texts a programme is found by (see programmeSearchText), each once, in a fixed order: the
 * same programme gives the same list, so an ingest can keep the search text of a list it has
 * seen (programmes repeat their texts: 98,098 programmes, 11,309 distinct lists in the 30 MB
 * corpus guide).
 */
export function searchedTextsOf(v1: V1Texts, details: ProgrammeDetails): string[] {
  // The first title and description are usually those of the v1 fields again: each text once.
  const texts: string[] = [];
  const add = (text: string) => {
    if (text !== '' && !texts.includes(text)) texts.push(text);
  };
  add(v1.title);
  add(details.subTitle);
  add(v1.desc);
  for (const t of details.titles) add(t.value);
  for (const t of details.subTitles) add(t.value);
  for (const t of details.descs) add(t.value);
  for (const c of v1.categories) add(c);
  for (const c of details.categories) add(c);
  for (const c of details.credits) add(c.name);
  return texts;
}

/** The search text of `texts` (searchedTextsOf): each distinct word once, in order. */
export function searchTextOf(texts: readonly string[]): string {
  const words = new Set<string>();
  for (const text of texts) for (const word of searchWordsOf(text)) words.add(word);
  return [...words].join(' ');
}

/** The words a query asks for: every one as a word, the last also as a prefix of one. */
export interface SearchTerms {
  /** Distinct, in query order, without the last word. */
  words: string[];
  prefix: string;
}

/** The sort key of a search result: start, channel name (case-insensitive), programme id. */
export interface SearchKey {
  startMs: number;
  nameKey: string;
  id: string;
}

/** A parsed search: its terms (null when `q` is blank: nothing is searched), filters and page. */
export interface ProgrammeSearchQuery {
  terms: SearchTerms | null;
  /** Stored upper-case form, or null for every country. */
  country: string | null;
  /** Lower-case ids, each once, or null for every channel. */
  channels: string[] | null;
  /** Explicit instants (ms), or null: `from` now, `to` DEFAULT_SEARCH_DAYS after `from`. */
  fromMs: number | null;
  toMs: number | null;
  limit: number;
  /** Results after this key only (the cursor's), or null for the first page. */
  after: SearchKey | null;
  /** What a cursor of this query carries, so that another query's is refused. */
  fingerprint: string;
}

/** The terms of `q`: trimmed, cut to 200 characters, in words; null when it has none. */
export function searchTermsOf(q: string | undefined): SearchTerms | null {
  const trimmed = (q ?? '').trim();
  const cut = Array.from(trimmed).slice(0, MAX_SEARCH_LENGTH).join('');
  const words = searchWordsOf(cut);
  const prefix = words.pop();
  if (prefix === undefined) return null;
  return { words: [...new Set(words)], prefix };
}

/** Reads `q`, `country`, `channels`, `from`, `to`, `limit` and `cursor`; other keys are ignored. */
export function parseProgrammeSearchQuery(query: RawQuery): ProgrammeSearchQuery {
  const terms = searchTermsOf(query['q']);
  const countryText = query['country'];
  const country =
    countryText === undefined || countryText.trim() === '' ? null : parseCountryCode(countryText);
  const channelsText = query['channels'];
  const channels = channelsText === undefined ? null : parseChannelIds(channelsText);
  const from = parseSearchInstant('from', query['from'], true);
  const to = parseSearchInstant('to', query['to'], false);
  if (from !== null && to !== null) checkRange(from, to);
  // Starts are whole seconds: start >= from, and start < to, exactly when the start is at or
  // after, or before, the next whole second at or after each (a fraction counts, not dropped).
  const fromMs = from === null ? null : wholeSecondUp(from);
  const toMs = to === null ? null : wholeSecondUp(to);
  const limit = parseLimit(query['limit']);
  const fingerprint = fingerprintOf(terms, country, channels, fromMs, toMs);
  const cursor = query['cursor'];
  const after = cursor === undefined ? null : decodeCursor(cursor, fingerprint);
  return { terms, country, channels, fromMs, toMs, limit, after, fingerprint };
}

/**
 * The window [fromMs, toMs) of a search answered at `nowMs` (whole seconds, as the guide's), or
 * the error of a window that is empty or longer than MAX_SEARCH_DAYS.
 */
export function searchWindow(
  query: Pick<ProgrammeSearchQuery, 'fromMs' | 'toMs'>,
  nowMs: number,
): { fromMs: number; toMs: number } {
  const fromMs = query.fromMs ?? Math.floor(nowMs / 1000) * 1000;
  const toMs = query.toMs ?? fromMs + DEFAULT_SEARCH_DAYS * DAY_MS;
  // Both given: checked as sent (parseProgrammeSearchQuery). One defaulted to a whole second:
  // the other, rounded up, compares with it as sent would.
  if (query.fromMs === null || query.toMs === null) {
    checkRange({ secondMs: fromMs, fraction: '' }, { secondMs: toMs, fraction: '' });
  }
  return { fromMs, toMs };
}

function checkRange(from: ExactInstant, to: ExactInstant): void {
  if (compareExactSpan(to, from, 0) <= 0) {
    throw errors.invalidParameters('Invalid to: it must be after from');
  }
  if (compareExactSpan(to, from, MAX_SEARCH_DAYS * DAY_MS) > 0) {
    throw errors.invalidParameters(
      `Invalid range: from and to may be at most ${MAX_SEARCH_DAYS} days apart`,
    );
  }
}

function parseSearchInstant(
  name: 'from' | 'to',
  text: string | undefined,
  nowAllowed: boolean,
): ExactInstant | null {
  if (text === undefined || (nowAllowed && text.toLowerCase() === 'now')) return null;
  const instant = parseExactInstant(text);
  if (instant === null) {
    throw errors.invalidParameters(
      `Invalid ${name}: use ${nowAllowed ? 'now, ' : ''}YYYYMMDDHHMMSS +HHMM (XMLTV) or ISO 8601 with an offset or Z, such as 2026-08-22T18:30:00+02:00 (send + as %2B)`,
    );
  }
  return instant;
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SEARCH_LIMIT;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_SEARCH_LIMIT)) {
    throw errors.invalidParameters(`Invalid limit: use an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return n;
}

/** A short digest of what selects the results (not the page): a cursor belongs to it. */
function fingerprintOf(
  terms: SearchTerms | null,
  country: string | null,
  channels: readonly string[] | null,
  fromMs: number | null,
  toMs: number | null,
): string {
  const selection = [
    terms?.words ?? [],
    terms?.prefix ?? null,
    country,
    channels === null ? null : [...channels].sort(),
    fromMs,
    toMs,
  ];
  return sha256Hex(JSON.stringify(selection)).slice(0, 16);
}

/** The order of results: negative when `a` comes first. Names compare by code unit, as stored. */
export function compareSearchKeys(a: SearchKey, b: SearchKey): number {
  if (a.startMs !== b.startMs) return a.startMs - b.startMs;
  if (a.nameKey !== b.nameKey) return a.nameKey < b.nameKey ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const CURSOR_VERSION = 1;

/** The opaque cursor of the page after `last`: base64url of the key and the query's fingerprint. */
export function encodeCursor(last: SearchKey, fingerprint: string): string {
  const payload = [CURSOR_VERSION, fingerprint, last.startMs, last.nameKey, last.id];
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const invalidCursor = () =>
  errors.invalidParameters(
    'Invalid cursor: send the `next` of the previous answer, with the same q, country, channels, from and to',
  );

/** The key a cursor of this query holds; refuses a malformed one or another query's. */
export function decodeCursor(cursor: string, fingerprint: string): SearchKey {
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(payload) || payload.length !== 5) throw invalidCursor();
  const [version, print, startMs, nameKey, id] = payload as unknown[];
  if (
    version !== CURSOR_VERSION ||
    print !== fingerprint ||
    typeof startMs !== 'number' ||
    !Number.isSafeInteger(startMs) ||
    typeof nameKey !== 'string' ||
    // No name holds U+0000 (XML cannot), and PostgreSQL's text refuses it: a 500, not a 400.
    nameKey.includes('\u0000') ||
    typeof id !== 'string' ||
    !/^[0-9]{1,20}$/.test(id)
  ) {
    throw invalidCursor();
  }
  return { startMs, nameKey, id };
}
