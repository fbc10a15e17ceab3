import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { programmeIdFor } from '../../domain/programme-id.js';
import { RowPacker } from '../packed-rows.js';
import { insertPackedRows, statementCache, type RowInsert } from './staging-runner.js';

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
