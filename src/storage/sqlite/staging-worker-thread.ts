import { createRequire } from 'node:module';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import {
  ROWS_PER_STATEMENT,
  completionsByTable,
  insertPackedRows,
  runSteps,
  statementCache,
  type SqlStepResult,
} from './staging-runner.js';
import type { WorkerInput, WorkerReply, WorkerRequest } from './staging-worker-protocol.js';
import { errorInfo } from '../thread-errors.js';

// Required rather than imported: imported, the CommonJS driver goes through the ESM loader's
// scan of its exports, which each new thread (one per ingest) paid again at its start.
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

/**
 * The staging thread's entry, started by createWorkerRunner (staging-worker.ts): it opens its
 * own connection to the catalogue file and executes what the session sends; all the logic
 * stays in the session code. After a failed insert it refuses everything but `close`, so the
 * session sees the first error.
 */
function serveStaging(port: MessagePort, input: WorkerInput): void {
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
  const statements = open === null ? null : statementCache(open);
  const completions = completionsByTable();
  port.on('message', (m: WorkerRequest) => {
    if (m.op === 'insert') {
      if (failure === null && open !== null && statements !== null) {
        try {
          open.transaction(() =>
            insertPackedRows(statements, completions, m.insert, m.packed, ROWS_PER_STATEMENT),
          )();
        } catch (error) {
          failure = error;
        }
      }
      reply({ op: 'inserted', error: failure === null ? null : errorInfo(failure) });
    } else if (m.op === 'script') {
      if (failure !== null || open === null || statements === null) {
        reply({ op: 'done', id: m.id, error: errorInfo(failure) });
        return;
      }
      try {
        let results: SqlStepResult[];
        if (m.mode === 'plain') results = runSteps(open, statements, m.steps);
        else {
          const tx = open.transaction(() => runSteps(open, statements, m.steps));
          results = m.mode === 'immediate' ? tx.immediate() : tx();
        }
        reply({ op: 'done', id: m.id, results });
      } catch (error) {
        reply({ op: 'done', id: m.id, error: errorInfo(error) });
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

if (parentPort === null) throw new Error('staging-worker-thread runs as a worker thread only');
serveStaging(parentPort, workerData as WorkerInput);
