import { createRequire } from 'node:module';
import { Worker, type MessagePort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { programmeIdOfSlot, programmeSlotKey } from '../../domain/catalogue-ids.js';
import { sha256HexWith } from '../../domain/sha256.js';
import {
  ROWS_PER_STATEMENT,
  insertPackedRows,
  multiRowInsertSql,
  runSteps,
  statementCache,
  unpackRows,
  type PackedRows,
  type ProgrammeIdFunction,
  type RowInsert,
  type ScriptMode,
  type SqlStep,
  type SqlStepResult,
  type StagingRunner,
} from './staging-runner.js';

interface ErrorInfo {
  message: string;
  code?: string;
  name?: string;
}

type WorkerRequest =
  | { op: 'insert'; insert: RowInsert; packed: PackedRows }
  | { op: 'script'; id: number; steps: readonly SqlStep[]; mode: ScriptMode }
  | { op: 'close' };

type WorkerReply =
  | { op: 'inserted'; error: ErrorInfo | null }
  | { op: 'done'; id: number; results?: SqlStepResult[]; error?: ErrorInfo }
  | { op: 'closed' };

interface WorkerInput {
  driver: string;
  path: string;
  pragmas: string[];
  perStatement: number;
}

/** What the worker's code is handed: the shared helpers of staging-runner.ts and the domain. */
interface WorkerHelpers {
  statementCache: typeof statementCache;
  insertPackedRows: typeof insertPackedRows;
  runSteps: typeof runSteps;
  programmeId: ProgrammeIdFunction;
}

/**
 * The worker thread's code. It runs from its source text (see WORKER_SOURCE), so it refers to
 * nothing outside its body but its arguments. It only executes what the session sends; all
 * the logic stays in the typed session code.
 */
function stagingWorkerMain(
  port: MessagePort,
  input: WorkerInput,
  Database: typeof BetterSqlite3,
  helpers: WorkerHelpers,
): void {
  const info = (error: unknown): ErrorInfo => {
    const e = error as { message?: unknown; code?: unknown; name?: unknown } | null;
    return {
      message: String(e?.message ?? error),
      ...(typeof e?.code === 'string' ? { code: e.code } : {}),
      ...(typeof e?.name === 'string' ? { name: e.name } : {}),
    };
  };
  const reply = (message: WorkerReply) => port.postMessage(message);
  let db: BetterSqlite3.Database | null = null;
  let failure: unknown = null;
  try {
    db = new Database(input.path, { fileMustExist: true });
    for (const pragma of input.pragmas) db.pragma(pragma);
  } catch (error) {
    failure = error;
  }
  const open = db;
  const statements = open === null ? null : helpers.statementCache(open);
  port.on('message', (m: WorkerRequest) => {
    if (m.op === 'insert') {
      if (failure === null && open !== null && statements !== null) {
        try {
          open.transaction(() =>
            helpers.insertPackedRows(
              statements,
              m.insert,
              m.packed,
              input.perStatement,
              helpers.programmeId,
            ),
          )();
        } catch (error) {
          failure = error;
        }
      }
      reply({ op: 'inserted', error: failure === null ? null : info(failure) });
    } else if (m.op === 'script') {
      if (failure !== null || open === null || statements === null) {
        reply({ op: 'done', id: m.id, error: info(failure) });
        return;
      }
      try {
        let results: SqlStepResult[];
        if (m.mode === 'plain') results = helpers.runSteps(open, statements, m.steps);
        else {
          const tx = open.transaction(() => helpers.runSteps(open, statements, m.steps));
          results = m.mode === 'immediate' ? tx.immediate() : tx();
        }
        reply({ op: 'done', id: m.id, results });
      } catch (error) {
        reply({ op: 'done', id: m.id, error: info(error) });
      }
    } else {
      try {
        if (open !== null && open.open) open.close();
      } catch {
        // closing is best effort; the connection goes with the thread anyway
      }
      reply({ op: 'closed' });
      port.close();
    }
  });
}

/**
 * The worker's source: the functions above, evaluated as a CommonJS script. Source text rather
 * than a module file because the same code must run from `dist/` and under Vitest, which runs
 * the TypeScript sources (where no `.js` worker file exists). The helpers are self-contained
 * functions of staging-runner.ts, so both threads run one definition of them.
 */
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const multiRowInsertSql = ${multiRowInsertSql.toString()};
const unpackRows = ${unpackRows.toString()};
const statementCache = ${statementCache.toString()};
const insertPackedRows = ${insertPackedRows.toString()};
const runSteps = ${runSteps.toString()};
const programmeSlotKey = ${programmeSlotKey.toString()};
const programmeIdOfSlot = ${programmeIdOfSlot.toString()};
const sha256Hex = (${sha256HexWith.toString()})(require('node:crypto'));
(${stagingWorkerMain.toString()})(parentPort, workerData, require(workerData.driver), {
  statementCache, insertPackedRows, runSteps,
  programmeId: (channelId, start) => programmeIdOfSlot(sha256Hex, programmeSlotKey(channelId, start)),
});
`;

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
 * Inserts are sent without waiting (their arrays moved, not copied); `drain` bounds how many
 * are in flight.
 */
export function createWorkerRunner(path: string, pragmas: readonly string[]): StagingRunner {
  const input: WorkerInput = {
    driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    path,
    pragmas: [...pragmas],
    perStatement: ROWS_PER_STATEMENT,
  };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: input });
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
  const send = (request: WorkerRequest, transfer: ArrayBuffer[] = []) =>
    worker.postMessage(request, transfer);

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
    insertRows(insert: RowInsert, packed: PackedRows) {
      if (packed.rows === 0 || failure !== null) return;
      pendingInserts++;
      send({ op: 'insert', insert, packed }, [
        packed.textLengths.buffer as ArrayBuffer,
        packed.numbers.buffer as ArrayBuffer,
      ]);
    },
    script(steps: readonly SqlStep[], mode: ScriptMode) {
      if (failure !== null) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<SqlStepResult[]>((resolve, reject) => {
        scripts.set(id, { resolve, reject });
        send({ op: 'script', id, steps, mode });
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
        send({ op: 'close' });
      });
      await worker.terminate();
    },
  };
}
