import { programmeIdFor } from '../../domain/programme-id.js';
import type { PackedValue, RowCompletion } from '../packed-rows.js';
import { SearchTextMemo } from '../search-text-memo.js';
import type { MadeValues } from './staged-tables.js';

/**
 * Completes each unpacked row with the values the store makes (MadeValues, staged-tables.ts), in
 * the thread that writes the rows (SQLite's staging thread, PostgreSQL's COPY encoder) rather
 * than on the parser's, whose work bounds an ingest's read. Making the search texts there took
 * a generated 124 MB guide in French and German from 8.1–8.6 to 6.7–7.0 s into SQLite (the
 * 92 MB bench guide, whose texts repeat, 2–3 % less: `node bench/ingest.mjs --child worker
 * FILE`, bench/INGEST.md). Null when `made` makes none. One per table and session: its memo of
 * search texts lasts the file.
 */
export function madeValuesCompletion(made: MadeValues): RowCompletion | null {
  const { programmeIdOf, searchTextAt } = made;
  if (programmeIdOf === null && searchTextAt === null) return null;
  const memo = new SearchTextMemo();
  return {
    appended: programmeIdOf === null ? 0 : 1,
    complete(values: PackedValue[], at: number, next: number) {
      if (searchTextAt !== null) {
        values[at + searchTextAt] = memo.textOf(values[at + searchTextAt] as string);
      }
      if (programmeIdOf !== null) {
        values[next] = programmeIdFor(
          values[at + programmeIdOf[0]] as string,
          values[at + programmeIdOf[1]] as string,
        );
      }
    },
  };
}
