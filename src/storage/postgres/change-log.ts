import type pg from 'pg';
import {
  changeLogResult,
  changeLogStatement,
  type ChangeLog,
  type ChangeRow,
} from '../change-log.js';

type Row = ChangeRow & { newest: string | null; horizon: string | null };

/** The change log over a PostgreSQL pool: each read one statement, so one snapshot. */
export function createPostgresChangeLog(pool: pg.Pool): ChangeLog {
  return {
    async read(query) {
      const params: (string | number | readonly string[])[] = [];
      const sql = changeLogStatement(
        query,
        (value) => {
          params.push(value);
          return `$${params.length}`;
        },
        (ids) => `ch.channel_id = ANY(${ids}::text[])`,
      );
      return changeLogResult((await pool.query<Row>(sql, params)).rows);
    },
  };
}
