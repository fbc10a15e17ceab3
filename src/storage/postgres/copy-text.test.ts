import { describe, expect, it } from 'vitest';
import { programmeIdFor } from '../../domain/programme-id.js';
import { PIECE_CHARS, RowPacker, type PackedColumn } from '../packed-rows.js';
import { createCopyEncoder } from './copy-encoder.js';
import { copyLines, type CopyShape } from './copy-text.js';

const SHAPE: CopyShape = {
  columns: ['number', 'text', 'text', 'nullable-text', 'number'] satisfies PackedColumn[],
  programmeIdOf: [1, 2],
};

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
