import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { programmeIdFor } from '../../domain/programme-id.js';
import {
  RowPacker,
  insertPackedRows,
  statementCache,
  unpackRows,
  type PackedColumn,
  type RowInsert,
  type SqlValue,
} from './staging-runner.js';

describe('RowPacker and unpackRows', () => {
  it('hand rows over intact: texts of any content, nulls, numbers, in statement-sized groups', () => {
    const columns: PackedColumn[] = ['number', 'text', 'nullable-text', 'number'];
    const rows: SqlValue[][] = [];
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
    const groups: [number, SqlValue[]][] = [];
    unpackRows(packed, columns, 4, (n, values) => groups.push([n, [...values]]));
    expect(groups.map(([n]) => n)).toEqual([4, 4, 2]);
    expect(groups.flatMap(([, values]) => values)).toEqual(rows.flat());
  });
});

describe('insertPackedRows', () => {
  it('binds each row with the programme id of its channel and start when asked', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (seq INTEGER, channel_id TEXT, start TEXT, id TEXT)');
    const insert: RowInsert = {
      head: 'INSERT INTO t (seq, channel_id, start, id)',
      columns: ['number', 'text', 'text'],
      tail: '',
      programmeIdOf: [1, 2],
    };
    const packer = new RowPacker(insert.columns, 8);
    for (let i = 0; i < 7; i++) {
      packer.number(i);
      packer.text(`channel-${i % 2}`);
      packer.text(`2026112${i}000000 +0000`);
      packer.endRow();
    }
    insertPackedRows(statementCache(db), insert, packer.take(), 3);
    const rows = db.prepare('SELECT * FROM t ORDER BY seq').all() as {
      seq: number;
      channel_id: string;
      start: string;
      id: string;
    }[];
    expect(rows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const r of rows) expect(r.id).toBe(programmeIdFor(r.channel_id, r.start));
    db.close();
  });
});
