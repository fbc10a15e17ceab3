import type { SearchTerms } from '../domain/programme-search.js';
import { toChannel, toRichProgramme, PROGRAMME_COLUMNS, type RichProgrammeRow } from './rows.js';
import type { ProgrammeSearchHit } from './catalogue-reader.js';

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

/**
 * The texts a walk looks for in `' ' || search_words || ' '` (every whole word) and in
 * `' ' || search_words` (the prefix): the stored words are separated by single spaces, so this
 * is the word index's match, tested on one row.
 */
export function wordPatterns(terms: SearchTerms): { words: string[]; prefix: string } {
  return { words: terms.words.map((w) => ` ${w} `), prefix: ` ${terms.prefix}` };
}
