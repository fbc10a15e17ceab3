import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { programmeIdFor } from '../../domain/programme-id.js';
import { searchTextOf } from '../../domain/programme-search.js';
import { RowPacker } from '../packed-rows.js';
import { joinSearchedTexts } from '../search-text-memo.js';
import {
  completionsByTable,
  insertPackedRows,
  statementCache,
  type RowInsert,
} from './staging-runner.js';

describe('insertPackedRows', () => {
  it('binds each row with the programme id of its channel and start, and its search text', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (seq INTEGER, channel_id TEXT, start TEXT, words TEXT, id TEXT)');
    const insert: RowInsert = {
      head: 'INSERT INTO t (seq, channel_id, start, words, id)',
      columns: ['number', 'text', 'text', 'text'],
      tail: '',
      made: { programmeIdOf: [1, 2], searchTextAt: 3 },
    };
    const texts = (i: number) => [`Télé ${i % 3}`, 'ÉTÉ', `Film ${i}`];
    const completions = completionsByTable();
    const statements = statementCache(db);
    for (const batch of [0, 1]) {
      const packer = new RowPacker(insert.columns, 8);
      for (let i = batch * 7; i < batch * 7 + 7; i++) {
        packer.number(i);
        packer.text(`channel-${i % 2}`);
        packer.text(`2026112${i % 10}000000 +0000`);
        packer.text(joinSearchedTexts(texts(i)));
        packer.endRow();
      }
      insertPackedRows(statements, completions, insert, packer.take(), 3);
    }
    const rows = db.prepare('SELECT * FROM t ORDER BY seq').all() as {
      seq: number;
      channel_id: string;
      start: string;
      words: string;
      id: string;
    }[];
    expect(rows.map((r) => r.seq)).toEqual([...Array(14).keys()]);
    for (const r of rows) {
      expect(r.id).toBe(programmeIdFor(r.channel_id, r.start));
      expect(r.words).toBe(searchTextOf(texts(r.seq)));
    }
    db.close();
  });
});
