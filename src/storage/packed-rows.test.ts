import { describe, expect, it } from 'vitest';
import {
  PIECE_CHARS,
  RowPacker,
  unpackRows,
  type PackedColumn,
  type PackedValue,
} from './packed-rows.js';

describe('RowPacker and unpackRows', () => {
  it('hand rows over intact: texts of any content, nulls, numbers, in statement-sized groups', () => {
    const columns: PackedColumn[] = ['number', 'text', 'nullable-text', 'number'];
    const rows: PackedValue[][] = [];
    for (let i = 0; i < 10; i++) {
      rows.push([
        i,
        `t${i}\u0000|"é📺`.repeat(i),
        i % 3 === 0 ? null : `n${i}`,
        i % 2 ? null : i / 4,
      ]);
    }
    const packer = new RowPacker(columns, 16);
    for (const [seq, text, nullable, value] of rows) {
      packer.number(seq as number);
      packer.text(text as string);
      packer.nullableText(nullable as string | null);
      packer.number(value as number | null);
      expect(packer.endRow()).toBe(false);
    }
    const packed = packer.take();
    expect(packer.rows).toBe(0);
    const groups: [number, PackedValue[]][] = [];
    unpackRows(packed, columns, 4, (n, values) => groups.push([n, [...values]]));
    expect(groups.map(([n]) => n)).toEqual([4, 4, 2]);
    expect(groups.flatMap(([, values]) => values)).toEqual(rows.flat());
  });

  it('join long batches in pieces, a value never split, empty values at their edges kept', () => {
    const columns: PackedColumn[] = ['text', 'nullable-text', 'text', 'number'];
    const rows: PackedValue[][] = [];
    for (let i = 0; i < 400; i++) {
      // Long values that fill pieces, and rows whose texts are all empty or null between them.
      const empty = i % 5 === 0;
      rows.push([
        empty ? '' : `${i}:${'Télé 📺 '.repeat((i * 37) % 300)}`,
        empty || i % 3 === 0 ? null : `n${i}`,
        empty ? '' : 'x'.repeat(i % 11),
        i,
      ]);
    }
    const packer = new RowPacker(columns, rows.length);
    for (const [text, nullable, short, seq] of rows) {
      packer.text(text as string);
      packer.nullableText(nullable as string | null);
      packer.text(short as string);
      packer.number(seq as number);
      packer.endRow();
    }
    const packed = packer.take();
    expect(packed.texts.length).toBeGreaterThan(10);
    const longest = Math.max(...rows.map((r) => (r[0] as string).length + 20));
    for (const piece of packed.texts) expect(piece.length).toBeLessThan(PIECE_CHARS + longest);
    const values: PackedValue[] = [];
    unpackRows(packed, columns, 64, (_, group) => values.push(...group));
    expect(values).toEqual(rows.flat());
  });
});
