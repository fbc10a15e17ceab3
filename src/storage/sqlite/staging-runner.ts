import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './connection.js';
import { madeValuesCompletion } from '../ingest-merge/made-values.js';
import type { MadeValues } from '../ingest-merge/staged-tables.js';
import {
  unpackRows,
  type PackedColumn,
  type PackedRows,
  type RowCompletion,
} from '../packed-rows.js';

/** A value bound to a statement parameter. */
export type SqlValue = string | number | bigint | null;

/** One statement of a script: `run` reports changes, `get` the first row, `all` every row. */
export interface SqlStep {
  sql: string;
  params?: readonly SqlValue[];
  kind: 'run' | 'get' | 'all' | 'exec';
  /**
   * Runs the step only when `column` of the row of the earlier `get` step at index `step` is
   * truthy (else its result is `skipped`), so one script, in one transaction, can choose its
   * statements from what it found.
   */
  when?: { step: number; column: string };
}

/** Row of a `get`/`all` step. */
export type SqlRow = Record<string, SqlValue>;

/** Result of one step, in the order of the script. */
export type SqlStepResult =
  | { kind: 'run'; changes: number }
  | { kind: 'get'; row: SqlRow | undefined }
  | { kind: 'all'; rows: SqlRow[] }
  | { kind: 'exec' }
  | { kind: 'skipped' };

/** How a script's statements are grouped. */
export type ScriptMode = 'plain' | 'transaction' | 'immediate';

/** A multi-row INSERT: `head` is `INSERT INTO t (a, b)`, `tail` an optional ON CONFLICT clause. */
export interface RowInsert {
  head: string;
  columns: readonly PackedColumn[];
  tail: string;
  /**
   * The values the staging thread makes (made-values.ts): a programme id after the columns
   * (`head` names it last), a search text in place of the searched texts.
   */
  made: MadeValues;
}

/**
 * Runs the SQL of one ingest on its own connection. Kept to a few generic operations so the
 * same session logic can drive a connection in this thread or one in a worker thread.
 */
export interface StagingRunner {
  /** Appends packed rows, in one transaction; errors surface at the next `drain` or script. */
  insertRows(insert: RowInsert, rows: PackedRows): void;
  /** Runs the steps, in one transaction unless `mode` is 'plain'; rolls back on error. */
  script(steps: readonly SqlStep[], mode: ScriptMode): Promise<SqlStepResult[]>;
  /** Resolves when earlier `insertRows` calls are done; rejects with their error. */
  drain(): Promise<void>;
  /** Releases the connection (closing it when the runner opened it). */
  close(): Promise<void>;
}

/** Rows per multi-row INSERT statement: fewer statement calls, well under the parameter limit. */
export const ROWS_PER_STATEMENT = 64;

// The functions below run in whichever thread holds the connection: this one
// (createInThreadRunner) or the staging thread (staging-worker-thread.ts).

/** SQL of a multi-row INSERT of `rows` rows. */
export function multiRowInsertSql(insert: RowInsert, rows: number): string {
  const width = insert.columns.length + (insert.made.programmeIdOf === null ? 0 : 1);
  const row = `(${new Array<string>(width).fill('?').join(',')})`;
  return `${insert.head} VALUES ${new Array<string>(rows).fill(row).join(',')} ${insert.tail}`;
}

// Parameters are passed as one array, which better-sqlite3 binds in order.
type Statement = Database.Statement<unknown[]>;

/** Prepares each distinct SQL text once per connection. */
export interface StatementCache {
  prepare(sql: string): Statement;
  clear(): void;
}

export function statementCache(db: SqliteDatabase): StatementCache {
  const statements = new Map<string, Statement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<unknown[]>(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    clear() {
      statements.clear();
    },
  };
}

/**
 * Each staged table's RowCompletion (madeValuesCompletion), made once per connection and
 * session: the memo of search texts lasts the file. By the insert's `head`, which names the
 * table (a RowInsert sent to the staging thread arrives as a new object each time).
 */
export type Completions = (insert: RowInsert) => RowCompletion | null;

export function completionsByTable(): Completions {
  const made = new Map<string, RowCompletion | null>();
  return (insert) => {
    let completion = made.get(insert.head);
    if (completion === undefined) {
      completion = madeValuesCompletion(insert.made);
      made.set(insert.head, completion);
    }
    return completion;
  };
}

/**
 * Inserts packed rows with multi-row statements, completed with the values the insert makes
 * (RowInsert.made); the caller holds the transaction.
 */
export function insertPackedRows(
  statements: StatementCache,
  completions: Completions,
  insert: RowInsert,
  packed: PackedRows,
  perStatement: number,
): void {
  const sqlByRows = new Map<number, string>();
  unpackRows(
    packed,
    insert.columns,
    perStatement,
    (rows, values) => {
      let sql = sqlByRows.get(rows);
      if (sql === undefined) {
        sql = multiRowInsertSql(insert, rows);
        sqlByRows.set(rows, sql);
      }
      statements.prepare(sql).run(values);
    },
    // Bound with the row rather than computed by SQLite from a generated column: calling back
    // into JavaScript from SQLite cost 0.12-0.17 s more per 294,510 rows (bench/INGEST.md).
    completions(insert),
  );
}

/** Runs a step list (see SqlStep.when for the steps it skips). */
export function runSteps(
  db: SqliteDatabase,
  statements: StatementCache,
  steps: readonly SqlStep[],
): SqlStepResult[] {
  const results: SqlStepResult[] = [];
  for (const step of steps) {
    if (step.when !== undefined) {
      const earlier = results[step.when.step];
      const row = earlier !== undefined && earlier.kind === 'get' ? earlier.row : undefined;
      if (row === undefined || !row[step.when.column]) {
        results.push({ kind: 'skipped' });
        continue;
      }
    }
    if (step.kind === 'exec') {
      db.exec(step.sql);
      results.push({ kind: 'exec' });
      continue;
    }
    const statement = statements.prepare(step.sql);
    const params = step.params === undefined ? [] : [...step.params];
    if (step.kind === 'run') results.push({ kind: 'run', changes: statement.run(params).changes });
    else if (step.kind === 'get')
      results.push({ kind: 'get', row: statement.get(params) as SqlRow });
    else results.push({ kind: 'all', rows: statement.all(params) as SqlRow[] });
  }
  return results;
}

/**
 * Runner over a connection in this thread. With `owned` the runner closes the connection;
 * otherwise (the `:memory:` fallback, where the store's own connection is used) it leaves it.
 */
export function createInThreadRunner(db: SqliteDatabase, owned: boolean): StagingRunner {
  const statements = statementCache(db);
  const completions = completionsByTable();
  const insertTx = db.transaction((insert: RowInsert, packed: PackedRows) =>
    insertPackedRows(statements, completions, insert, packed, ROWS_PER_STATEMENT),
  );
  return {
    insertRows(insert, packed) {
      if (packed.rows > 0) insertTx(insert, packed);
    },
    async script(steps, mode) {
      if (mode === 'plain') return runSteps(db, statements, steps);
      const tx = db.transaction(() => runSteps(db, statements, steps));
      return mode === 'immediate' ? tx.immediate() : tx();
    },
    async drain() {},
    async close() {
      statements.clear();
      if (owned && db.open) db.close();
    },
  };
}
