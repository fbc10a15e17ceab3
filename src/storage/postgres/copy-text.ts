import type { MadeValues } from '../ingest-merge/staged-tables.js';
import {
  PIECE_CHARS,
  unpackRows,
  type PackedColumn,
  type PackedRows,
  type RowCompletion,
} from '../packed-rows.js';

/** What COPY's text format escapes in a value: the backslash, and tab and line breaks. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/** A value in COPY's text format. */
export function copyText(value: string): string {
  return COPY_SPECIAL.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] ?? c)
    : value;
}

/** How packed rows become COPY text: their columns, and the values the encoder makes. */
export interface CopyShape {
  readonly columns: readonly PackedColumn[];
  /** A programme id ends each line when made; a search text replaces the searched texts. */
  readonly made: MadeValues;
}

/**
 * Packed rows as COPY text: tab-separated columns, `\N` for NULL, one line a row; numbers as
 * written (booleans come as 1 and 0, which COPY reads as booleans). In pieces of whole lines,
 * each about PIECE_CHARS long, for the reason given there. `completion` makes the values of
 * `shape.made` (madeValuesCompletion, one for every batch of a session).
 */
export function copyLines(
  packed: PackedRows,
  shape: CopyShape,
  completion: RowCompletion | null,
): string[] {
  const pieces: string[] = [];
  let text = '';
  unpackRows(
    packed,
    shape.columns,
    packed.rows,
    (rows, values) => {
      const width = values.length / rows;
      for (let at = 0; at < values.length; at += width) {
        let line = '';
        for (let c = at; c < at + width; c++) {
          const value = values[c];
          line +=
            value === null || value === undefined
              ? '\\N\t'
              : typeof value === 'number'
                ? `${value}\t`
                : `${copyText(value)}\t`;
        }
        text += `${line.slice(0, -1)}\n`;
        if (text.length >= PIECE_CHARS) {
          pieces.push(text);
          text = '';
        }
      }
    },
    completion,
  );
  if (text !== '') pieces.push(text);
  return pieces;
}
