import { describe, expect, it } from 'vitest';
import { RowPacker, unpackRows, type PackedColumn, type PackedValue } from './packed-rows.js';

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
});
