import type {
  PackedRows,
  RowInsert,
  ScriptMode,
  SqlStep,
  SqlStepResult,
} from './staging-runner.js';

// The messages between an ingest session's runner (staging-worker.ts) and its staging thread
// (staging-worker-thread.ts), both sides typed by this one file.

/** What the staging thread is started with (its `workerData`). */
export interface WorkerInput {
  /** The catalogue file, opened by the thread (it must exist). */
  path: string;
  /** Run on the thread's connection once opened (see STAGING_PRAGMAS in ingest-session.ts). */
  pragmas: string[];
}

/** An error as it crosses threads: its message, and its SQLite code and name when it has them. */
export interface ErrorInfo {
  message: string;
  code?: string;
  name?: string;
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

/** What crosses to the session of an error thrown in the staging thread. */
export function errorInfo(error: unknown): ErrorInfo {
  const e = error as { message?: unknown; code?: unknown; name?: unknown } | null;
  return {
    message: String(e?.message ?? error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.name === 'string' ? { name: e.name } : {}),
  };
}

/** The session's side of errorInfo: an Error with the same message, name and code. */
export function errorFromInfo(info: ErrorInfo): Error {
  const error = new Error(info.message) as Error & { code?: string };
  if (info.name !== undefined) error.name = info.name;
  if (info.code !== undefined) error.code = info.code;
  return error;
}
