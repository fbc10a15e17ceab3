import type { SearchTerms } from '../domain/programme-search.js';
import { toChannel, toProgramme, PROGRAMME_COLUMNS, type ProgrammeRow } from './rows.js';
import type { ProgrammeSearch, ProgrammeSearchHit } from './catalogue-reader.js';

/**
 * What both engines' programme search shares: the plan (read the word index, or walk the
 * programmes in result order), the statements of each way, and how a row becomes a hit.
 * docs/catalogue.md, "The search index", tells the design; bench/RESULTS.md its measures.
 */

/**
 * The plan's levels, cheapest first. At each, the matches of the words are counted in the word
 * index up to `cap` (FTS5; PostgreSQL estimates from its statistics): fewer are read from the
 * index and sorted, which costs about a row read each. Otherwise the programmes are walked in
 * result order, at most `budget` of them, testing each one's words, and the walk ends at the
 * page's end: a word in a third of the programmes fills a page of 50 after ~150 rows. A page
 * not filled within the budget means the words are sparse in the window: the next level, and
 * after the last the word index whatever its count.
 *
 * Counting costs about 0.1 µs a match (FTS5) and walking about 1.7 µs a programme (1.8 million
 * programmes, `node bench/search.mjs`), so the first level's small cap keeps a frequent word
 * cheap, and its small budget keeps a word of a few thousand matches from walking long before
 * its count is known.
 */
export const SEARCH_LEVELS: readonly { cap: number; budget: number }[] = [
  { cap: 500, budget: 2_000 },
  { cap: 5_000, budget: 20_000 },
];

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
  | {
      kind: 'walk';
      /** Programmes walked at most, in result order, before the page is given up. */
      budget: number;
    };

/** The reads an engine gives the search plan. */
export interface SearchReads {
  /** Programmes (of any time) with every `words` and, unless null, a word starting with `prefix`, counted to `cap`. */
  count(words: readonly string[], prefix: string | null, cap: number): Promise<number>;
  /** The search's rows read in this mode, in result order, at most `search.limit`. */
  rows(search: ProgrammeSearch, mode: SearchMode): Promise<SearchRow[]>;
}

/**
 * A search on either engine, planned by SEARCH_LEVELS. The word index is counted only where it
 * answers cheaply: whole words, and prefixes of 2 to 4 characters it keeps whole; a longer
 * prefix only when its first four characters match few programmes (otherwise FTS5 would merge
 * the lists of every word it begins before the first row: a rare title among 10 million
 * programmes was judged by its first three characters, which thousands of made-up titles
 * share). A prefix not counted is tested on the rows read. When the walks did not fill the
 * page, the index is read with the whole prefix (its words are then known to be sparse), or,
 * for a query of one letter and nothing else, the whole window is walked.
 */
export async function planAndSearch(
  search: ProgrammeSearch,
  reads: SearchReads,
): Promise<ProgrammeSearchHit[]> {
  const hits = (rows: SearchRow[]) => rows.map(toSearchHit);
  const { words, prefix } = search.terms;
  const lastCap = SEARCH_LEVELS.at(-1)?.cap ?? 0;
  const countedPrefix =
    (prefix.length >= 2 && prefix.length <= INDEXED_PREFIX) ||
    (prefix.length > INDEXED_PREFIX &&
      (await reads.count([], prefix.slice(0, INDEXED_PREFIX), lastCap)) < lastCap);
  const counted = { kind: 'index', words, prefix: countedPrefix ? prefix : null } as const;
  for (const { cap, budget } of SEARCH_LEVELS) {
    if (
      (countedPrefix || words.length > 0) &&
      (await reads.count(counted.words, counted.prefix, cap)) < cap
    ) {
      return hits(await reads.rows(search, counted));
    }
    const walked = await reads.rows(search, { kind: 'walk', budget });
    if (walked.length >= search.limit) return hits(walked);
  }
  if (prefix.length < 2 && words.length === 0) {
    return hits(await reads.rows(search, { kind: 'walk', budget: Number.MAX_SAFE_INTEGER }));
  }
  const whole = { kind: 'index', words, prefix: prefix.length < 2 ? null : prefix } as const;
  return hits(await reads.rows(search, whole));
}

/** The programme (`p`) and channel (`c`) columns of a search's rows. */
export const SEARCH_COLUMNS = `${PROGRAMME_COLUMNS.split(', ')
  .map((column) => `p.${column}`)
  .join(', ')}, p.details, p.channel_id, p.start_ms, p.channel_name_key,
  c.name AS channel_name, c.icon AS channel_icon, c.country AS channel_country,
  c.needs_review AS channel_needs_review`;

export interface SearchRow extends ProgrammeRow {
  details: string;
  channel_id: string;
  start_ms: number | string;
  channel_name_key: string;
  channel_name: string;
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
    channelId: row.channel_id,
    programme: toProgramme(row),
    details: row.details,
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
  /**
   * A walk's statement: `ordered` (FROM, WHERE, ORDER BY and LIMIT of the programmes `p` in
   * result order, at most the budget) read in that order, each row with its channel `c`,
   * `where` testing each, the first `limit` that pass.
   */
  walk(parts: { columns: string; ordered: string; where: string; limit: string }): string;
  /** FROM of a walk's subquery: the programmes in result order, in a country or by channel. */
  walked(filter: 'all' | 'country' | 'channels'): string;
  /** The programme's channel is among the parameter (a list of ids). */
  channelIn(parameter: string): string;
  /** How the list of channel ids is passed. */
  channelsValue(ids: readonly string[]): SearchValue;
}

export type SearchValue = string | number | readonly string[];

/** The result order, `id` being the programme id as the engine compares it. */
export const SEARCH_ORDER = (id: string) => `p.start_ms, p.channel_name_key, ${id}`;

/**
 * A search's statement and parameters in `mode`: from the word index and sorted, or a walk in
 * result order testing each programme's words (`wordPatterns`).
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
  // Which programmes, in which window: the same for both ways. Parameters are numbered in the
  // order they are made, which is their order in the text (SQLite's are positional).
  const selection = () => {
    const after = search.after;
    const selected = [
      `p.start_ms >= ${p(Math.max(search.fromMs, after?.startMs ?? search.fromMs))}`,
      `p.start_ms < ${p(search.toMs)}`,
    ];
    if (after !== null) {
      selected.push(`(p.start_ms > ${p(after.startMs)} OR p.channel_name_key > ${p(after.nameKey)}
        OR (p.channel_name_key = ${p(after.nameKey)} AND ${d.id} > ${p(after.id)}))`);
    }
    if (search.country !== null) selected.push(`p.channel_country = ${p(search.country)}`);
    if (search.channels !== null) selected.push(d.channelIn(p(d.channelsValue(search.channels))));
    return selected;
  };
  const patterns = wordPatterns(search.terms);
  const has = (text: string, pattern: string) => `${d.position}(${text}, ${p(pattern)}) > 0`;
  if (mode.kind === 'index') {
    const index = d.indexed(p(d.indexQuery(mode.words, mode.prefix)));
    const where = [index.where, ...selection()];
    if (mode.prefix === null) where.push(has(`' ' || p.search_words`, patterns.prefix));
    const sql = `SELECT ${SEARCH_COLUMNS} FROM ${index.from}
      JOIN channels AS c ON c.id = p.channel_id
      WHERE ${where.join(' AND ')} ORDER BY ${SEARCH_ORDER(d.id)} LIMIT ${p(search.limit)}`;
    return { sql, params };
  }
  const filter =
    search.channels !== null ? 'channels' : search.country !== null ? 'country' : 'all';
  const ordered = `${d.walked(filter)} WHERE ${selection().join(' AND ')}
    ORDER BY ${SEARCH_ORDER(d.id)} LIMIT ${p(mode.budget)}`;
  const tests = patterns.words.map((word) => has(`' ' || p.search_words || ' '`, word));
  tests.push(has(`' ' || p.search_words`, patterns.prefix));
  const sql = d.walk({
    columns: SEARCH_COLUMNS,
    ordered,
    where: tests.join(' AND '),
    limit: p(search.limit),
  });
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
