import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  ROWS_PER_STATEMENT,
  multiRowInsertSql,
  type RowInsert,
  type ScriptMode,
  type SqlStep,
  type SqlStepResult,
  type SqlValue,
  type StagingRunner,
} from './staging-runner.js';

/**
 * The worker's code, evaluated as a CommonJS script. It is plain JavaScript in a string rather
 * than a module of its own because the same code must run from `dist/` and under Vitest (which
 * runs the TypeScript sources, where no `.js` worker file exists). It only executes what the
 * session sends; all the logic stays in the typed session code.
 */
const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const statements = new Map();
let db = null;
let failure = null;
function prepare(sql) {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
function info(error) {
  return { message: String((error && error.message) || error), code: error && error.code, name: error && error.name };
}
function runSteps(steps) {
  return steps.map((step) => {
    if (step.kind === 'exec') {
      db.exec(step.sql);
      return { kind: 'exec' };
    }
    const statement = prepare(step.sql);
    const params = step.params || [];
    if (step.kind === 'run') return { kind: 'run', changes: statement.run(params).changes };
    if (step.kind === 'get') return { kind: 'get', row: statement.get(params) };
    return { kind: 'all', rows: statement.all(params) };
  });
}
try {
  db = new Database(workerData.path, { fileMustExist: true });
  for (const pragma of workerData.pragmas) db.pragma(pragma);
} catch (error) {
  failure = error;
}
parentPort.on('message', (m) => {
  if (m.op === 'insert') {
    if (failure === null) {
      try {
        db.transaction(() => {
          const width = m.columns * m.perStatement;
          let row = 0;
          if (m.rows >= m.perStatement) {
            const many = prepare(m.manySql);
            for (; row + m.perStatement <= m.rows; row += m.perStatement) {
              many.run(m.values.slice(row * m.columns, row * m.columns + width));
            }
          }
          if (row < m.rows) prepare(m.restSql).run(m.values.slice(row * m.columns));
        })();
      } catch (error) {
        failure = error;
      }
    }
    parentPort.postMessage({ op: 'inserted', error: failure === null ? null : info(failure) });
  } else if (m.op === 'script') {
    if (failure !== null) {
      parentPort.postMessage({ op: 'done', id: m.id, error: info(failure) });
      return;
    }
    try {
      let results;
      if (m.mode === 'plain') results = runSteps(m.steps);
      else {
        const tx = db.transaction(() => runSteps(m.steps));
        results = m.mode === 'immediate' ? tx.immediate() : tx();
      }
      parentPort.postMessage({ op: 'done', id: m.id, results });
    } catch (error) {
      parentPort.postMessage({ op: 'done', id: m.id, error: info(error) });
    }
  } else if (m.op === 'close') {
    try {
      if (db !== null && db.open) db.close();
    } catch (error) {
      // closing is best effort; the connection goes with the thread anyway
    }
    parentPort.postMessage({ op: 'closed' });
    parentPort.close();
  }
});
`;

interface ErrorInfo {
  message: string;
  code?: string;
  name?: string;
}

type WorkerReply =
  | { op: 'inserted'; error: ErrorInfo | null }
  | { op: 'done'; id: number; results?: SqlStepResult[]; error?: ErrorInfo }
  | { op: 'closed' };

/** Insert batches allowed in flight before `drain` makes the reader wait. */
const MAX_PENDING_INSERTS = 4;

function toError(info: ErrorInfo): Error {
  const error = new Error(info.message) as Error & { code?: string };
  if (info.name !== undefined) error.name = info.name;
  if (info.code !== undefined) error.code = info.code;
  return error;
}

/**
 * A staging runner whose connection lives in a worker thread, so staging (and the merge) run
 * beside the parser instead of after it, and the event loop stays free during the merge.
 * Inserts are sent without waiting; `drain` bounds how many are in flight.
 */
export function createWorkerRunner(path: string, pragmas: readonly string[]): StagingRunner {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, driver, pragmas: [...pragmas] },
  });
  let pendingInserts = 0;
  let failure: Error | null = null;
  let nextId = 1;
  let exited = false;
  const scripts = new Map<number, { resolve(r: SqlStepResult[]): void; reject(e: Error): void }>();
  let drainWaiter: { resolve(): void; reject(e: Error): void } | null = null;
  let closeWaiter: (() => void) | null = null;

  const settleDrain = () => {
    if (drainWaiter === null) return;
    if (failure !== null) drainWaiter.reject(failure);
    else if (pendingInserts <= MAX_PENDING_INSERTS / 2) drainWaiter.resolve();
    else return;
    drainWaiter = null;
  };
  const failAll = (error: Error) => {
    failure ??= error;
    for (const waiter of scripts.values()) waiter.reject(error);
    scripts.clear();
    settleDrain();
  };

  worker.on('message', (reply: WorkerReply) => {
    if (reply.op === 'inserted') {
      pendingInserts--;
      if (reply.error !== null) failure ??= toError(reply.error);
      settleDrain();
    } else if (reply.op === 'done') {
      const waiter = scripts.get(reply.id);
      scripts.delete(reply.id);
      if (reply.error !== undefined) waiter?.reject(toError(reply.error));
      else waiter?.resolve(reply.results ?? []);
    } else {
      closeWaiter?.();
    }
  });
  worker.on('error', (error: Error) => failAll(error));
  worker.on('exit', () => {
    exited = true;
    failAll(new Error('the ingest staging worker stopped'));
    closeWaiter?.();
  });

  return {
    insertRows(insert: RowInsert, values: SqlValue[], rowCount: number) {
      if (rowCount === 0 || failure !== null) return;
      pendingInserts++;
      const rest = rowCount % ROWS_PER_STATEMENT;
      worker.postMessage({
        op: 'insert',
        manySql: multiRowInsertSql(insert, ROWS_PER_STATEMENT),
        restSql: rest === 0 ? null : multiRowInsertSql(insert, rest),
        perStatement: ROWS_PER_STATEMENT,
        columns: insert.columns,
        values,
        rows: rowCount,
      });
    },
    script(steps: readonly SqlStep[], mode: ScriptMode) {
      if (failure !== null) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<SqlStepResult[]>((resolve, reject) => {
        scripts.set(id, { resolve, reject });
        worker.postMessage({ op: 'script', id, steps, mode });
      });
    },
    drain() {
      if (failure !== null) return Promise.reject(failure);
      if (pendingInserts <= MAX_PENDING_INSERTS) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        drainWaiter = { resolve, reject };
      });
    },
    async close() {
      if (exited) return;
      await new Promise<void>((resolve) => {
        closeWaiter = resolve;
        worker.postMessage({ op: 'close' });
      });
      await worker.terminate();
    },
  };
}
