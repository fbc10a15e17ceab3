import type { StagedValueKind } from './ingest-merge/staged-tables.js';

// Staged rows on their way from the parser's thread to the one that writes them: SQLite's
// staging thread (sqlite/staging-worker.ts) or PostgreSQL's COPY encoder
// (postgres/copy-encoder.ts).

/** How a column's values travel in PackedRows. */
export type PackedColumn = StagedValueKind;

/**
 * Rows packed for a cheap hand-over to another thread. Structured cloning an array of values
 * costs about a microsecond per value (measured: most of the parser thread's staging
 * cost), while a few strings and two typed arrays, moved rather than copied, cost a fraction of
 * that. Row-major: every text value, in column order, is concatenated into `texts` with its
 * length in `textLengths` (-1 for null); number columns are in `numbers` (NaN for null).
 */
export interface PackedRows {
  rows: number;
  /**
   * The text values, concatenated in pieces of about PIECE_CHARS: a value never spans two
   * pieces, so a reader moves to the next piece when the one it reads is used up.
   */
  texts: string[];
  textLengths: Int32Array;
  numbers: Float64Array;
}

/**
 * Characters of text values joined into one piece. A string of more than V8's largest regular
 * object (128 KiB) is made in its large-object space, each in a fresh mapping of memory: the
 * 92 MB bench guide's 575 batches of 512 programmes, each joined into one string of about 250
 * Ki characters and handed over, took 1.27 s; in pieces of 16 Ki characters, 77–122 ms
 * (`node bench/string-pieces.mjs`).
 */
export const PIECE_CHARS = 16 * 1024;

/** A value of a packed row: null where the row has none. */
export type PackedValue = string | number | null;

/** Collects rows into PackedRows of at most `capacity` rows, column by column. */
export class RowPacker {
  rows = 0;
  private pieces: string[] = [];
  private texts: string[] = [];
  private pieceChars = 0;
  private textLengths: Int32Array;
  private numbers: Float64Array;
  private textAt = 0;
  private numberAt = 0;
  private readonly textColumns: number;
  private readonly numberColumns: number;

  constructor(
    columns: readonly PackedColumn[],
    readonly capacity: number,
  ) {
    this.numberColumns = columns.filter((c) => c === 'number').length;
    this.textColumns = columns.length - this.numberColumns;
    this.textLengths = new Int32Array(capacity * this.textColumns);
    this.numbers = new Float64Array(capacity * this.numberColumns);
  }

  text(value: string): void {
    this.texts.push(value);
    this.pieceChars += value.length;
    this.textLengths[this.textAt++] = value.length;
  }

  nullableText(value: string | null): void {
    if (value === null) this.textLengths[this.textAt++] = -1;
    else this.text(value);
  }

  number(value: number | null): void {
    this.numbers[this.numberAt++] = value ?? Number.NaN;
  }

  /** Ends a row; true when the packer is full and should be taken. */
  endRow(): boolean {
    if (this.pieceChars >= PIECE_CHARS) this.endPiece();
    return ++this.rows >= this.capacity;
  }

  private endPiece(): void {
    this.pieces.push(this.texts.join(''));
    this.texts = [];
    this.pieceChars = 0;
  }

  /** The rows packed so far (fresh arrays, ready to be moved), and a clean packer. */
  take(): PackedRows {
    if (this.texts.length > 0) this.endPiece();
    const packed: PackedRows = {
      rows: this.rows,
      texts: this.pieces,
      textLengths: this.textLengths,
      numbers: this.numbers,
    };
    this.rows = 0;
    this.pieces = [];
    this.textAt = 0;
    this.numberAt = 0;
    this.textLengths = new Int32Array(this.capacity * this.textColumns);
    this.numbers = new Float64Array(this.capacity * this.numberColumns);
    return packed;
  }
}

/**
 * What the thread that writes staged rows makes of each row once unpacked: values it replaces
 * and `appended` values after the row's columns (the store's made values, made-values.ts).
 */
export interface RowCompletion {
  readonly appended: number;
  /**
   * Completes the row whose values start at index `at` of `values`, in place; its appended
   * values go from index `next`.
   */
  complete(values: PackedValue[], at: number, next: number): void;
}

/**
 * Unpacks `packed` into rows of values, `perStatement` rows at a time (fewer for the
 * last group), handing each group to `run`. The parameter array of full groups is reused.
 * With `completion`, each row is completed once unpacked (RowCompletion).
 */
export function unpackRows(
  packed: PackedRows,
  columns: readonly PackedColumn[],
  perStatement: number,
  run: (rows: number, values: PackedValue[]) => void,
  completion: RowCompletion | null = null,
): void {
  const { texts, textLengths, numbers } = packed;
  let piece = 0;
  let text = texts[0] ?? '';
  const columnCount = columns.length;
  const appended = completion === null ? 0 : completion.appended;
  const width = columnCount + appended;
  const full = new Array<PackedValue>(width * perStatement);
  let textAt = 0;
  let numberAt = 0;
  let offset = 0;
  for (let done = 0; done < packed.rows;) {
    const rows = Math.min(perStatement, packed.rows - done);
    const values = rows === perStatement ? full : new Array<PackedValue>(width * rows);
    let k = 0;
    for (let r = 0; r < rows; r++) {
      const at = k;
      for (let c = 0; c < columnCount; c++) {
        if (columns[c] === 'number') {
          const value = numbers[numberAt++] as number;
          values[k++] = Number.isNaN(value) ? null : value;
        } else {
          const length = textLengths[textAt++] as number;
          if (length < 0) {
            values[k++] = null;
          } else {
            // The piece is used up: this value is the first of the next (a piece may be empty).
            while (length > 0 && offset === text.length && piece < texts.length - 1) {
              text = texts[++piece] as string;
              offset = 0;
            }
            values[k++] = text.slice(offset, offset + length);
            offset += length;
          }
        }
      }
      if (completion !== null) {
        completion.complete(values, at, k);
        k += appended;
      }
    }
    run(rows, values);
    done += rows;
  }
}
