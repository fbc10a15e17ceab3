import type { SearchTerms } from '../domain/programme-search.js';
import { toChannel, toRichProgramme, PROGRAMME_COLUMNS, type RichProgrammeRow } from './rows.js';
import type { ProgrammeSearch, ProgrammeSearchHit } from './catalogue-reader.js';

/**
 * What both engines' programme search shares: the columns it reads, how a row becomes a hit,
 * the word tests of a walk by start, and when to walk rather than ask the word index.
 */

/**
 * A search whose words match fewer stored programmes than this reads them all from the word
 * index (FTS5, GIN) and sorts them; one matching more walks the programmes by start, testing
 * each, and stops at the page's end: for a frequent word few are tested (bench/RESULTS.md).
 */
export const SEARCH_INDEX_CAP = 4000;

/**
 * How many programmes, in start order, a walk may test before the search asks the word index
 * instead: a page not filled by then means the words are rare in the window.
 */
export const SEARCH_WALK_BUDGET = 20_000;

/**
 * The longest prefix the word index keeps whole (FTS5 `prefix = '2 3 4'`): prefixes of 2 to 4
 * characters are cheap to count, and a longer one is judged by its first 4.
 */
const INDEXED_PREFIX = 4;

/** How a search reads: from the word index (`words` whole, `prefix` as a prefix), or a walk. */
export type SearchMode =
  | {
      kind: 'index';
      /** Words the index must hold; with `prefix` null the prefix is tested on each row. */
      words: readonly string[];
      prefix: string | null;
    }
  | { kind: 'walk'; toMs: number };

/** The reads an engine gives the search plan. */
export interface SearchReads {
  /** Programmes (of any time) with every `words` and, unless null, a word starting with `prefix`, counted to `cap`. */
  count(words: readonly string[], prefix: string | null, cap: number): Promise<number>;
  /** The start of the programme `n` places after the first starting in [fromMs, toMs), or null. */
  startAfter(fromMs: number, toMs: number, n: number): Promise<number | null>;
  /** The search's rows read in this mode, in result order, at most `search.limit`. */
  rows(search: ProgrammeSearch, mode: SearchMode): Promise<SearchRow[]>;
}

/**
 * A search on either engine, planned with cheap counts of the word index (each stops at
 * SEARCH_INDEX_CAP): few matches are read from the index and sorted; otherwise the programmes
 * are walked by start for at most SEARCH_WALK_BUDGET of them, and only when that does not fill
 * the page is the index read after all. A prefix is counted only where the index keeps it whole
 * (2 to 4 characters) or its first four characters match few: any other prefix would make the
 * index merge the lists of every word it begins (a rare title among 10 million programmes was
 * judged by its first three characters, which thousands of made-up titles share, and walked).
 */
export async function planAndSearch(
  search: ProgrammeSearch,
  reads: SearchReads,
): Promise<ProgrammeSearchHit[]> {
  const { words, prefix } = search.terms;
  const cap = SEARCH_INDEX_CAP;
  const hits = (rows: SearchRow[]) => rows.map(toSearchHit);
  const indexed = { kind: 'index', words, prefix } as const;
  const cheapPrefix =
    (prefix.length >= 2 && prefix.length <= INDEXED_PREFIX) ||
    (prefix.length > INDEXED_PREFIX &&
      (await reads.count([], prefix.slice(0, INDEXED_PREFIX), cap)) < cap);
  if (cheapPrefix && (await reads.count(words, prefix, cap)) < cap) {
    return hits(await reads.rows(search, indexed));
  }
  if (!cheapPrefix && words.length > 0 && (await reads.count(words, null, cap)) < cap) {
    return hits(await reads.rows(search, { kind: 'index', words, prefix: null }));
  }
  const fromMs = Math.max(search.fromMs, search.after?.startMs ?? search.fromMs);
  const budgetEnd = await reads.startAfter(fromMs, search.toMs, SEARCH_WALK_BUDGET);
  // Every programme starting up to `budgetEnd`, all of that start included, is tested: the
  // page is exact when it fills.
  const walkTo = budgetEnd === null ? search.toMs : budgetEnd + 1;
  const walked = await reads.rows(search, { kind: 'walk', toMs: walkTo });
  if (budgetEnd === null || walked.length >= search.limit) return hits(walked);
  return hits(await reads.rows(search, indexed));
}

/** The programme (`p`) and channel (`c`) columns of a search's rows. */
export const SEARCH_COLUMNS = `${PROGRAMME_COLUMNS.split(', ')
  .map((column) => `p.${column}`)
  .join(', ')}, p.details, p.channel_id, p.start_ms,
  c.name AS channel_name, c.name_key AS channel_name_key, c.icon AS channel_icon,
  c.country AS channel_country, c.needs_review AS channel_needs_review`;

export interface SearchRow extends RichProgrammeRow {
  channel_id: string;
  start_ms: number | string;
  channel_name: string;
  channel_name_key: string;
  channel_icon: string;
  channel_country: string;
  channel_needs_review: number | boolean;
}

export function toSearchHit(row: SearchRow): ProgrammeSearchHit {
  return {
    key: { startMs: Number(row.start_ms), nameKey: row.channel_name_key, id: row.id },
    channel: toChannel({
      id: row.channel_id,
      name: row.channel_name,
      icon: row.channel_icon,
      country: row.channel_country,
      needs_review: row.channel_needs_review,
    }),
    programme: toRichProgramme(row, row.channel_id),
  };
}

/** What differs between the engines in a search's statement. */
export interface SearchDialect {
  /** The placeholder of the `n`th parameter (from 1). */
  placeholder(n: number): string;
  /** The text function giving the position of `needle` in `haystack` (0: absent). */
  readonly position: 'instr' | 'strpos';
  /** The programme id as the order compares it (byte order on both engines). */
  readonly id: string;
  /** FROM and the word index's condition, `query` being the index query text's parameter. */
  indexed(query: string): { from: string; where: string };
  /** The index query text of `words` and `prefix`. */
  indexQuery(words: readonly string[], prefix: string | null): string;
  /** FROM of a walk by start (`byChannel`: by channel and start). */
  walked(byChannel: boolean): string;
  /** The programme's channel is among the parameter (a list of ids). */
  channelIn(parameter: string): string;
  /** How the list of channel ids is passed. */
  channelsValue(ids: readonly string[]): SearchValue;
}

export type SearchValue = string | number | readonly string[];

/**
 * A search's statement and parameters in `mode`: from the word index and sorted, or a walk by
 * start testing each programme's words (`wordPatterns`), both in result order.
 */
export function searchStatement(
  d: SearchDialect,
  search: ProgrammeSearch,
  mode: SearchMode,
): { sql: string; params: SearchValue[] } {
  const params: SearchValue[] = [];
  const p = (value: SearchValue) => {
    params.push(value);
    return d.placeholder(params.length);
  };
  const where: string[] = [];
  const patterns = wordPatterns(search.terms);
  const has = (text: string, pattern: string) => `${d.position}(${text}, ${p(pattern)}) > 0`;
  let from: string;
  let toMs = search.toMs;
  if (mode.kind === 'index') {
    const index = d.indexed(p(d.indexQuery(mode.words, mode.prefix)));
    from = index.from;
    where.push(index.where);
    if (mode.prefix === null) where.push(has(`' ' || p.search_words`, patterns.prefix));
  } else {
    from = d.walked(search.channels !== null);
    for (const word of patterns.words) where.push(has(`' ' || p.search_words || ' '`, word));
    where.push(has(`' ' || p.search_words`, patterns.prefix));
    toMs = Math.min(toMs, mode.toMs);
  }
  const after = search.after;
  where.push(
    `p.start_ms >= ${p(Math.max(search.fromMs, after?.startMs ?? search.fromMs))}`,
    `p.start_ms < ${p(toMs)}`,
  );
  if (after !== null) {
    where.push(`(p.start_ms > ${p(after.startMs)} OR c.name_key > ${p(after.nameKey)}
      OR (c.name_key = ${p(after.nameKey)} AND ${d.id} > ${p(after.id)}))`);
  }
  if (search.country !== null) where.push(`c.country = ${p(search.country)}`);
  if (search.channels !== null) where.push(d.channelIn(p(d.channelsValue(search.channels))));
  const sql = `SELECT ${SEARCH_COLUMNS} FROM ${from} JOIN channels AS c ON c.id = p.channel_id
    WHERE ${where.join(' AND ')}
    ORDER BY p.start_ms, c.name_key, ${d.id} LIMIT ${p(search.limit)}`;
  return { sql, params };
}

/**
 * The texts a walk looks for in `' ' || search_words || ' '` (every whole word) and in
 * `' ' || search_words` (the prefix): the stored words are separated by single spaces, so this
 * is the word index's match, tested on one row.
 */
export function wordPatterns(terms: SearchTerms): { words: string[]; prefix: string } {
  return { words: terms.words.map((w) => ` ${w} `), prefix: ` ${terms.prefix}` };
}
