import {
  changeLogResult,
  changeLogStatement,
  type ChangeLog,
  type ChangeRow,
} from '../change-log.js';
import type { SqliteDatabase } from './connection.js';

type Row = ChangeRow & { newest: number | null; horizon: number | null };

/** The change log over one SQLite connection: one statement per shape of read, prepared once. */
export function createSqliteChangeLog(db: SqliteDatabase): ChangeLog {
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], Row>>>();
  return {
    async read(query) {
      const params: (string | number)[] = [];
      const sql = changeLogStatement(
        query,
        (value) => {
          params.push(typeof value === 'object' ? JSON.stringify(value) : value);
          return '?';
        },
        (ids) => `ch.channel_id IN (SELECT value FROM json_each(${ids}))`,
      );
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<unknown[], Row>(sql);
        statements.set(sql, statement);
      }
      return changeLogResult(statement.all(...params));
    },
  };
}
