import { describe, expect, it } from 'vitest';
import { programmeIdFor } from '../../domain/programme-id.js';
import { searchTextOf } from '../../domain/programme-search.js';
import { madeValuesCompletion } from '../ingest-merge/made-values.js';
import { PIECE_CHARS, RowPacker, type PackedColumn, type PackedRows } from '../packed-rows.js';
import { joinSearchedTexts } from '../search-text-memo.js';
import { createCopyEncoder } from './copy-encoder.js';
import { copyLines as copyLinesOf, type CopyShape } from './copy-text.js';

const SHAPE: CopyShape = {
  columns: ['number', 'text', 'text', 'nullable-text', 'number'] satisfies PackedColumn[],
  made: { programmeIdOf: [1, 2], searchTextAt: null },
};

/** copyLines with the values `shape` makes, as the encoder's thread makes them. */
function copyLines(packed: PackedRows, shape: CopyShape): string[] {
  return copyLinesOf(packed, shape, madeValuesCompletion(shape.made));
}

/** Rows of (seq, channel, start, note, flag) packed as a session packs them. */
function pack(rows: [number, string, string, string | null, number | null][]) {
  const packer = new RowPacker(SHAPE.columns, rows.length);
  for (const [seq, channel, start, note, flag] of rows) {
    packer.number(seq);
    packer.text(channel);
    packer.text(start);
    packer.nullableText(note);
    packer.number(flag);
    packer.endRow();
  }
  return packer.take();
}

describe('copyLines', () => {
  it('writes one line a row: values escaped, NULL as \\N, the programme id last', () => {
    const start = '20260822100000 +0000';
    const text = copyLines(
      pack([
        [1, 'c1', start, 'tab\there, line\nbreak, back\\slash, cr\r, Télé 📺', 1],
        [2, 'c1', start, null, null],
        [3, 'c2', start, '', 0],
      ]),
      SHAPE,
    ).join('');
    expect(text.split('\n')).toEqual([
      `1\tc1\t${start}\ttab\\there, line\\nbreak, back\\\\slash, cr\\r, Télé 📺\t1\t${programmeIdFor('c1', start)}`,
      `2\tc1\t${start}\t\\N\t\\N\t${programmeIdFor('c1', start)}`,
      `3\tc2\t${start}\t\t0\t${programmeIdFor('c2', start)}`,
      '',
    ]);
  });

  it('gives a long batch in pieces of whole lines, about PIECE_CHARS each', () => {
    const start = '20260822100000 +0000';
    const rows = Array.from(
      { length: 300 },
      (_, i) => [i, `c${i % 7}`, start, `${'Télé 📺 '.repeat(i % 40)}\t${i}`, i % 2] as const,
    );
    const pieces = copyLines(pack(rows.map((r) => [...r])), SHAPE);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.endsWith('\n')).toBe(true);
      const lastLine = piece.slice(piece.lastIndexOf('\n', piece.length - 2) + 1);
      expect(piece.length - lastLine.length).toBeLessThan(PIECE_CHARS);
    }
    const lines = pieces.join('').split('\n');
    expect(lines).toHaveLength(301);
    expect(lines[299]).toBe(
      `299\tc5\t${start}\t${'Télé 📺 '.repeat(19)}\\t299\t1\t${programmeIdFor('c5', start)}`,
    );
  });
});

describe('copyLines with searched texts', () => {
  it('writes their search text in their place', () => {
    const shape: CopyShape = {
      columns: ['number', 'text', 'text', 'text'],
      made: { programmeIdOf: [1, 2], searchTextAt: 3 },
    };
    const lists = [['Télé Matin', 'Été\tà Paris'], [], ['Télé Matin', 'Été\tà Paris'], ['a\\b']];
    const packer = new RowPacker(shape.columns, lists.length);
    lists.forEach((texts, i) => {
      packer.number(i);
      packer.text('c1');
      packer.text(`2026082${i}100000 +0000`);
      packer.text(joinSearchedTexts(texts));
      packer.endRow();
    });
    const lines = copyLines(packer.take(), shape).join('').split('\n');
    expect(lines.slice(0, -1).map((line) => line.split('\t')[3])).toEqual(
      lists.map((texts) => searchTextOf(texts)),
    );
    expect(lines[3]).toBe(
      `3\tc1\t20260823100000 +0000\ta b\t${programmeIdFor('c1', '20260823100000 +0000')}`,
    );
  });
});

describe('createCopyEncoder', () => {
  it('answers batches in the order given, with the UTF-8 of their COPY text', async () => {
    const encoder = createCopyEncoder(SHAPE);
    try {
      // Batches of a few pieces each (long notes, characters of two to four UTF-8 bytes).
      const batches = Array.from({ length: 6 }, (_, b) =>
        Array.from(
          { length: 50 + b },
          (_, i) =>
            [
              i,
              `c${b}`,
              `2026082${b}1000${i % 10}0 +0000`,
              `é${i}\t${'語📺'.repeat(b * 90)}`,
              i % 2,
            ] as const,
        ),
      );
      const expected = batches.map((rows) =>
        copyLines(pack(rows.map((r) => [...r])), SHAPE).join(''),
      );
      const answers = await Promise.all(
        batches.map((rows) => encoder.encode(pack(rows.map((r) => [...r])))),
      );
      expect(answers.map((bytes) => bytes.toString('utf8'))).toEqual(expected);
    } finally {
      await encoder.close();
    }
    await expect(encoder.encode(pack([[1, 'c', 's', null, 1]]))).rejects.toThrow(/closed/);
  });
});
