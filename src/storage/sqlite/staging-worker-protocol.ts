import type { PackedRows } from '../packed-rows.js';
import type { RowInsert, ScriptMode, SqlStep, SqlStepResult } from './staging-runner.js';

import type { ErrorInfo } from '../thread-errors.js';

// The messages between an ingest session's runner (staging-worker.ts) and its staging thread
// (staging-worker-thread.ts), both sides typed by this one file.

/** What the staging thread is started with (its `workerData`). */
export interface WorkerInput {
  /** The catalogue file, opened by the thread (it must exist). */
  path: string;
  /** Run on the thread's connection once opened (see STAGING_PRAGMAS in ingest-session.ts). */
  pragmas: string[];
}

export type WorkerRequest =
  | { op: 'insert'; insert: RowInsert; packed: PackedRows }
  | { op: 'script'; id: number; steps: readonly SqlStep[]; mode: ScriptMode }
  | { op: 'close' };

/** `inserted` answers each `insert` in turn, `done` the `script` of its id, `closed` the `close`. */
export type WorkerReply =
  | { op: 'inserted'; error: ErrorInfo | null }
  | { op: 'done'; id: number; results?: SqlStepResult[]; error?: ErrorInfo }
  | { op: 'closed' };
