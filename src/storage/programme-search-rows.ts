import type { StoredProgramme } from '../domain/programme.js';
import type { SearchTerms } from '../domain/programme-search.js';
import { toChannel, toProgramme, type TimedProgrammeRow } from './rows.js';
import type { ProgrammeSearch, ProgrammeSearchHit } from './catalogue-reader.js';

/**
 * What both engines' programme search shares: the plan (read the word index, or walk the
 * programmes in result order), the statements of each way, and how a row becomes a hit.
 * docs/catalogue.md, "The search index", tells the design; bench/RESULTS.md its measures.
 */

/**
 * How the plan decides (planAndSearch). The matches of the words are counted in the word index
 * up to each cap in turn (FTS5; PostgreSQL estimates from its statistics): fewer than a cap are
 * read from the index and sorted, about a row read each, unless they are common among the
 * programmes stored (SEARCH_DENSE_WALK). More than the last are walked: the
 * programmes in result order, at most SEARCH_WALK_BUDGET of them, each one's words tested,
 * until the page is full; a word in a third of the programmes fills a page of 50 after ~150
 * rows. A page the walk does not fill means the words are sparse in the window: the index after
 * all.
 *
 * Counting costs about 0.1 µs a match (FTS5) and walking about 1.3 µs a programme (1.8 million
 * programmes; `node bench/search.mjs`): the small first cap settles a rare word for 0.05 ms, the
 * second keeps a word of a few thousand matches from a walk that would not fill. The budget
 * lets a frequent word skip start times without a match where many channels start together (in
 * the bench catalogue every channel starts at the same instants, 2,000 programmes each, and
 * "news" is in every third).
 */
export const SEARCH_COUNT_CAPS: readonly number[] = [500, 5_000];

export const SEARCH_WALK_BUDGET = 25_000;

/**
 * Words counted under a cap are still walked when they are common among the programmes stored:
 * a walk reads about `limit × stored / count` programmes to fill a page (about 1.3 µs each), the
 * index all `count` matches to sort them (about 0.7 µs each), so the walk is the cheaper when
 * count² > SEARCH_DENSE_WALK × limit × stored. In the bench catalogue (1.8 million programmes)
 * that is a word in 13,500 or more, past the last cap; in one country's guide of 7,762
 * programmes (the French guide of the test corpus) a word in 900 or more, such as the prefix
 * "de", in 4,996 of them: 1.7-3.1 ms a search read from the index, 0.5-0.6 walked, in process
 * (`node bench/search-density.mjs`, bench/RESULTS.md).
 */
export const SEARCH_DENSE_WALK = 2;

/** How a search reads: from the word index (`words` whole, `prefix` as a prefix), or a walk. */
export type SearchMode =
  | {
      kind: 'index';
      /** Words the index must hold, and unless null a word starting with `prefix`. */
      words: readonly string[];
      prefix: string | null;
      /** Whether `prefix` is the query's whole: if not, the whole is tested on each row. */
      whole: boolean;
    }
  | {
      kind: 'walk';
      /** Programmes walked at most, in result order, before the page is given up. */
      budget: number;
      /**
       * A table of the ids of the search texts that match the terms, tested instead of each
       * text's words, or null (SQLite's, kept per catalogue version: programme-search.ts).
       */
      matchingTexts: string | null;
      /**
       * Where to start instead, when the statement reads catalogue version `version`: what
       * earlier walks of that version found without a match comes before it (PostgreSQL's
       * empty spans, empty-spans.ts); null: from the search's own start.
       */
      startAt: { fromMs: number; version: number } | null;
    };

/** The reads an engine gives the search plan. */
export interface SearchReads {
  /** The longest prefix the word index reads at the cost of its own matches. */
  readonly indexedPrefix: number;
  /** Programmes (of any time) with every `words` and, unless null, a word starting with `prefix`, counted to `cap`. */
  count(words: readonly string[], prefix: string | null, cap: number): Promise<number>;
  /** The programmes stored (of any time), or more: an estimate that errs high, cheap to ask. */
  stored(): Promise<number>;
  /** The search's rows read in this mode, in result order, at most `search.limit`. */
  rows(search: ProgrammeSearch, mode: SearchMode): Promise<SearchRow[]>;
}

/**
 * A search on either engine, planned as SEARCH_COUNT_CAPS tells. The word index is counted and
 * read only as it answers cheaply: whole words, and a prefix up to the length it reads at the
 * cost of its own matches (FTS5: 2 to 4 characters, which it keeps whole; PostgreSQL's GIN:
 * any); a longer prefix is counted by its head and read whole, a prefix of one letter only
 * tested. When the walk did not fill the page, the index is read with the
 * whole prefix (its words are then known to be sparse), or, for a query of one letter and
 * nothing else, the whole window is walked.
 */
export async function planAndSearch(
  search: ProgrammeSearch,
  reads: SearchReads,
): Promise<ProgrammeSearchHit[]> {
  const hits = (rows: SearchRow[]) => rows.map(toSearchHit);
  const { words, prefix } = search.terms;
  const head = prefix.length < 2 ? null : prefix.slice(0, reads.indexedPrefix);
  if (head !== null || words.length > 0) {
    for (const cap of SEARCH_COUNT_CAPS) {
      const count = await reads.count(words, head, cap);
      if (count >= cap) continue;
      if (count * count > SEARCH_DENSE_WALK * search.limit * (await reads.stored())) break;
      // A longer prefix is read whole: its words are among the head's, so the index merges
      // fewer than `cap` entries for it, and only the texts that match are read. Reading by
      // the head and testing each of its texts' programmes whole took SQLite's search thread
      // half as long again for a rare title (`node bench/search.mjs --engines sqlite --cases
      // rare`, bench/RESULTS.md).
      // A prefix of one letter (no head) is only tested on each row.
      const mode = {
        kind: 'index',
        words,
        prefix: head === null ? null : prefix,
        whole: head !== null,
      } as const;
      return hits(await reads.rows(search, mode));
    }
  }
  const walk = (budget: number) =>
    reads.rows(search, { kind: 'walk', budget, matchingTexts: null, startAt: null });
  const walked = await walk(SEARCH_WALK_BUDGET);
  if (walked.length >= search.limit) return hits(walked);
  if (head === null && words.length === 0) return hits(await walk(Number.MAX_SAFE_INTEGER));
  return hits(await reads.rows(search, { kind: 'index', words, prefix, whole: true }));
}

/**
 * The columns of a search's rows: its place in the order, its channel (`c`), and the version of
 * the programme (`p`) found. Not its texts and rich data: most pages' entries are kept already
 * (entry-cache.ts), and reading those columns was the largest part of a PostgreSQL search's
 * time in the server (pg's parser: 2.5 s of 14.4 s busy, `node bench/search.mjs
 * --server-cpu-prof`); `programmesFound` reads them for the others.
 */
export const SEARCH_COLUMNS = `p.id, p.source_file_id, p.needs_review, p.updated_at, p.channel_id,
  p.start_ms, p.channel_name_key, c.name AS channel_name, c.icon AS channel_icon,
  c.country AS channel_country, c.needs_review AS channel_needs_review`;

/**
 * The rest of a programme, read with the rows of the word index: its matches are few and
 * seldom kept (a rare title), and reading them after the search cost PostgreSQL's rare-title
 * answers 8 % at 1.8 million programmes and 30 % at 10 million (bench/RESULTS.md).
 */
const WHOLE_COLUMNS = 'p.start, p.stop, p.title, p.description, p.category, p.details, p.stop_ms';

export interface SearchRow extends Partial<Omit<TimedProgrammeRow, keyof SlimRow>>, SlimRow {}

interface SlimRow {
  id: string;
  source_file_id: string;
  needs_review: number | boolean;
  updated_at: number | string;
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
    programme: {
      id: row.id,
      sourceFileId: row.source_file_id,
      needsReview: Boolean(row.needs_review),
      updatedAt: String(row.updated_at),
    },
    whole: isFound(row)
      ? { channelId: row.channel_id, programme: toProgramme(row), details: row.details }
      : null,
  };
}

/** Whether the row was read whole (a read of the word index). */
function isFound(row: SearchRow): row is SearchRow & TimedProgrammeRow {
  return row.details !== undefined;
}

/**
 * The stored programmes of `hits` from their rows (TIMED_PROGRAMME_COLUMNS) read at their
 * (channel, start, id), in the
 * hits' order: null where no row is there or its version is not the hit's (the port's rule,
 * one place for both engines).
 */
export function foundProgrammes(
  hits: readonly ProgrammeSearchHit[],
  rows: readonly TimedProgrammeRow[],
): (StoredProgramme | null)[] {
  const slot = (channelId: string, startMs: number, id: string) => `${channelId} ${startMs} ${id}`;
  const bySlot = new Map<string, TimedProgrammeRow>();
  for (const row of rows) bySlot.set(slot(row.channel_id, Number(row.start_ms), row.id), row);
  return hits.map(({ key, channel, programme: found }) => {
    const row = bySlot.get(slot(channel.id, key.startMs, key.id));
    if (row === undefined) return null;
    const programme = toProgramme(row);
    const same =
      programme.updatedAt === found.updatedAt &&
      programme.sourceFileId === found.sourceFileId &&
      programme.needsReview === found.needsReview;
    return same ? { channelId: channel.id, programme, details: row.details } : null;
  });
}

/** What differs between the engines in a search's statement. */
export interface SearchDialect {
  /** The placeholder of the `n`th parameter (from 1). */
  placeholder(n: number): string;
  /**
   * A programme's words as a search's tests read them: in its search text (`t`, which inOrder
   * joins) or in its own copy (`p`).
   */
  readonly words: string;
  /**
   * The start `fromMs` when the statement reads catalogue version `version`, else `otherwise`
   * (each a placeholder): read once, in the statement's own snapshot.
   */
  startAt(version: string, fromMs: string, otherwise: string): string;
  /** A programme's search text id, as a walk's tests read it. */
  readonly textId: string;
  /** The text function giving the position of `needle` in `haystack` (0: absent). */
  readonly position: 'instr' | 'strpos';
  /** The programme id as the order compares it (byte order on both engines). */
  readonly id: string;
  /**
   * FROM and WHERE of the programmes `p` of the search texts the word index matches (`query`
   * being the index query text's parameter) that meet `selected` (conditions on `p`: the window,
   * the page, the filters).
   */
  indexed(query: string, selected: string): { from: string; where: string };
  /** The words of a programme `indexed` gives, as a test of its rows reads them. */
  readonly indexedWords: string;
  /** The index query text of `words` and `prefix`. */
  indexQuery(words: readonly string[], prefix: string | null): string;
  /**
   * A search's statement: `ordered` (FROM, WHERE, ORDER BY and LIMIT of programmes `p` in
   * result order: the word index's matches, or a walk's programmes) read in that order, `where`
   * testing each (it may read `words`), each of the first `limit` that pass read whole with its
   * channel `c`. The rows and channels are read for those only, not for every match sorted.
   */
  inOrder(parts: { columns: string; ordered: string; where: string; limit: string }): string;
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
 * A search's statement and parameters in `mode`: the word index's matches sorted, or a walk in
 * result order testing each programme's words (`wordPatterns`); either way the full rows and
 * their channels are read for the page's programmes only.
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
    const lower = Math.max(search.fromMs, after?.startMs ?? search.fromMs);
    const startAt = mode.kind === 'walk' ? mode.startAt : null;
    const from =
      startAt === null ? p(lower) : d.startAt(p(startAt.version), p(startAt.fromMs), p(lower));
    const selected = [`p.start_ms >= ${from}`, `p.start_ms < ${p(search.toMs)}`];
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
  const limit = (n: number) => p(n);
  if (mode.kind === 'index') {
    const query = p(d.indexQuery(mode.words, mode.prefix));
    const index = d.indexed(query, selection().join(' AND '));
    const where = [index.where];
    if (!mode.whole) where.push(has(`' ' || ${d.indexedWords}`, patterns.prefix));
    const ordered = `${index.from} WHERE ${where.join(' AND ')}
      ORDER BY ${SEARCH_ORDER(d.id)} LIMIT ${limit(search.limit)}`;
    const sql = d.inOrder({
      columns: `${SEARCH_COLUMNS}, ${WHOLE_COLUMNS}`,
      ordered,
      where: 'true',
      limit: limit(search.limit),
    });
    return { sql, params };
  }
  const filter =
    search.channels !== null ? 'channels' : search.country !== null ? 'country' : 'all';
  const ordered = `${d.walked(filter)} WHERE ${selection().join(' AND ')}
    ORDER BY ${SEARCH_ORDER(d.id)} LIMIT ${limit(mode.budget)}`;
  // Matching texts in a table: an id looked up instead of the words read and searched (in
  // process, a walk of 2,000-4,000 programmes for "news" 0.65 -> 0.32 ms; bench/RESULTS.md).
  const tests =
    mode.matchingTexts !== null
      ? [`${d.textId} IN (SELECT id FROM ${mode.matchingTexts})`]
      : [
          ...patterns.words.map((word) => has(`' ' || ${d.words} || ' '`, word)),
          has(`' ' || ${d.words}`, patterns.prefix),
        ];
  const sql = d.inOrder({
    columns: SEARCH_COLUMNS,
    ordered,
    where: tests.join(' AND '),
    limit: limit(search.limit),
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
