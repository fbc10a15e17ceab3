import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

/** A value bound to a statement parameter. */
export type SqlValue = string | number | bigint | null;

/** One statement of a script: `run` reports changes, `get` the first row, `all` every row. */
export interface SqlStep {
  sql: string;
  params?: readonly SqlValue[];
  kind: 'run' | 'get' | 'all' | 'exec';
}

/** Row of a `get`/`all` step. */
export type SqlRow = Record<string, SqlValue>;

/** Result of one step, in the order of the script. */
export type SqlStepResult =
  | { kind: 'run'; changes: number }
  | { kind: 'get'; row: SqlRow | undefined }
  | { kind: 'all'; rows: SqlRow[] }
  | { kind: 'exec' };

/** How a script's statements are grouped. */
export type ScriptMode = 'plain' | 'transaction' | 'immediate';

/** A multi-row INSERT: `head` is `INSERT INTO t (a, b)`, `tail` an optional ON CONFLICT clause. */
export interface RowInsert {
  head: string;
  columns: number;
  tail: string;
}

/**
 * Runs the SQL of one ingest on its own connection. Kept to a few generic operations so the
 * same session logic can drive a connection in this thread or one in a worker thread.
 */
export interface StagingRunner {
  /** Appends `rowCount` rows whose values are laid out flat in `values`, in one transaction. */
  insertRows(insert: RowInsert, values: SqlValue[], rowCount: number): void;
  /** Runs the steps, in one transaction unless `mode` is 'plain'; rolls back on error. */
  script(steps: readonly SqlStep[], mode: ScriptMode): Promise<SqlStepResult[]>;
  /** Resolves when earlier `insertRows` calls are done; rejects with their error. */
  drain(): Promise<void>;
  /** Releases the connection (closing it when the runner opened it). */
  close(): Promise<void>;
}

type Statement = Database.Statement<SqlValue[]>;

/** Rows per multi-row INSERT statement: fewer statement calls, well under the parameter limit. */
export const ROWS_PER_STATEMENT = 64;

/** Runs a step list on a better-sqlite3 connection; shared by the in-thread runner. */
export function runSteps(
  db: SqliteDatabase,
  prepare: (sql: string) => Statement,
  steps: readonly SqlStep[],
): SqlStepResult[] {
  return steps.map((step): SqlStepResult => {
    if (step.kind === 'exec') {
      db.exec(step.sql);
      return { kind: 'exec' };
    }
    const statement = prepare(step.sql);
    const params = step.params === undefined ? [] : [...step.params];
    if (step.kind === 'run') return { kind: 'run', changes: statement.run(...params).changes };
    if (step.kind === 'get') return { kind: 'get', row: statement.get(...params) as SqlRow };
    return { kind: 'all', rows: statement.all(...params) as SqlRow[] };
  });
}

/** SQL of a multi-row INSERT of `rows` rows. */
export function multiRowInsertSql(insert: RowInsert, rows: number): string {
  const row = `(${new Array<string>(insert.columns).fill('?').join(',')})`;
  return `${insert.head} VALUES ${new Array<string>(rows).fill(row).join(',')} ${insert.tail}`;
}

/**
 * Runner over a connection in this thread. With `owned` the runner closes the connection;
 * otherwise (the `:memory:` fallback, where the store's own connection is used) it leaves it.
 */
export function createInThreadRunner(db: SqliteDatabase, owned: boolean): StagingRunner {
  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<SqlValue[]>(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const insertTx = db.transaction((insert: RowInsert, values: SqlValue[], rowCount: number) => {
    const many = prepare(multiRowInsertSql(insert, ROWS_PER_STATEMENT));
    const width = insert.columns * ROWS_PER_STATEMENT;
    let row = 0;
    for (; row + ROWS_PER_STATEMENT <= rowCount; row += ROWS_PER_STATEMENT) {
      const at = row * insert.columns;
      many.run(...values.slice(at, at + width));
    }
    if (row < rowCount) {
      const at = row * insert.columns;
      prepare(multiRowInsertSql(insert, rowCount - row)).run(...values.slice(at));
    }
  });
  return {
    insertRows(insert, values, rowCount) {
      if (rowCount > 0) insertTx(insert, values, rowCount);
    },
    async script(steps, mode) {
      if (mode === 'plain') return runSteps(db, prepare, steps);
      const tx = db.transaction(() => runSteps(db, prepare, steps));
      return mode === 'immediate' ? tx.immediate() : tx();
    },
    async drain() {},
    async close() {
      statements.clear();
      if (owned && db.open) db.close();
    },
  };
}
