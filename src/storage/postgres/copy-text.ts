import { programmeIdFor } from '../../domain/programme-id.js';
import { PIECE_CHARS, unpackRows, type PackedColumn, type PackedRows } from '../packed-rows.js';

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

/** How packed rows become COPY text: their columns, and where a programme id comes from. */
export interface CopyShape {
  readonly columns: readonly PackedColumn[];
  /**
   * When set, each line ends with one more value: the programme id of the row's values at
   * these indexes (channel id, start key).
   */
  readonly programmeIdOf: readonly [number, number] | null;
}

/**
 * Packed rows as COPY text: tab-separated columns, `\N` for NULL, one line a row; numbers as
 * written (booleans come as 1 and 0, which COPY reads as booleans). In pieces of whole lines,
 * each about PIECE_CHARS long, for the reason given there.
 */
export function copyLines(packed: PackedRows, shape: CopyShape): string[] {
  const idOf = shape.programmeIdOf;
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
    idOf === null
      ? null
      : (values, at) =>
          programmeIdFor(values[at + idOf[0]] as string, values[at + idOf[1]] as string),
  );
  if (text !== '') pieces.push(text);
  return pieces;
}
