import { Worker } from 'node:worker_threads';
import type { PackedRows } from '../packed-rows.js';
import type {
  RowInsert,
  ScriptMode,
  SqlStep,
  SqlStepResult,
  StagingRunner,
} from './staging-runner.js';
import type { WorkerInput, WorkerReply, WorkerRequest } from './staging-worker-protocol.js';
import { errorFromInfo } from '../thread-errors.js';

/**
 * The staging thread's entry file, beside this module: `.js` once built. Under Vitest this
 * module runs from its TypeScript source, with no `.js` beside it, so the thread runs the `.ts`
 * file, which the test processes make their worker threads able to load
 * (test/helpers/typescript-in-worker-threads.cjs).
 */
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./staging-worker-thread.ts', import.meta.url)
  : new URL('./staging-worker-thread.js', import.meta.url);

/** Insert batches allowed in flight before `drain` makes the reader wait. */
const MAX_PENDING_INSERTS = 4;

/**
 * A staging runner whose connection lives in a worker thread, so staging (and the merge) run
 * beside the parser instead of after it, and the event loop stays free during the merge.
 * Inserts are sent without waiting (their arrays moved, not copied); `drain` bounds how many
 * are in flight.
 */
export function createWorkerRunner(path: string, pragmas: readonly string[]): StagingRunner {
  const input: WorkerInput = { path, pragmas: [...pragmas] };
  const worker = new Worker(WORKER_ENTRY, {
    workerData: input,
    // Its garbage is a batch's values and the search texts made of them, gone once the batch
    // is in: a small young generation keeps the thread's memory small (the generated 124 MB
    // guide's ingest peaked at 230 MB against 255-261 with V8's default, as fast: `node
    // bench/ingest.mjs --child worker FILE`, bench/INGEST.md).
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
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
  const send = (request: WorkerRequest, transfer: ArrayBuffer[] = []) =>
    worker.postMessage(request, transfer);

  worker.on('message', (reply: WorkerReply) => {
    if (reply.op === 'inserted') {
      pendingInserts--;
      if (reply.error !== null) failure ??= errorFromInfo(reply.error);
      settleDrain();
    } else if (reply.op === 'done') {
      const waiter = scripts.get(reply.id);
      scripts.delete(reply.id);
      if (reply.error !== undefined) waiter?.reject(errorFromInfo(reply.error));
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
