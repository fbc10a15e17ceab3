import { Worker } from 'node:worker_threads';
import type { ProgrammeSearch, ProgrammeSearchHit } from '../catalogue-reader.js';
import {
  hitFrom,
  type SearchReply,
  type SearchRequest,
  type SearchWorkerInput,
} from './search-worker-protocol.js';
import { errorFromInfo } from '../thread-errors.js';

/** The search thread's entry file, beside this module (`.ts` under Vitest: staging-worker.ts). */
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./search-worker-thread.ts', import.meta.url)
  : new URL('./search-worker-thread.js', import.meta.url);

export interface SearchWorker {
  search(search: ProgrammeSearch): Promise<ProgrammeSearchHit[]>;
  /** Stops the thread; a search asked later starts another. */
  close(): Promise<void>;
}

/**
 * Programme search in a thread of its own, over its own connection to the catalogue file
 * (`path`). A search's reads are SQLite's own work, most of a frequent word's answer (54 % of
 * the server's busy time in `node bench/search.mjs --engines sqlite --server-cpu-prof DIR`):
 * there they run beside the event loop, on the other core, and a long one (a frequent word in a
 * catalogue of ten million programmes) no longer holds up every other request, as PostgreSQL's
 * searches run in its own processes. The thread starts at the first search and holds the
 * process open only while a search is waiting; if it fails, the searches waiting get its error
 * and the next search starts a new one.
 */
export function createSearchWorker(path: string, pragmas: readonly string[]): SearchWorker {
  const waiting = new Map<
    number,
    { resolve(h: ProgrammeSearchHit[]): void; reject(e: Error): void }
  >();
  let nextId = 1;
  let worker: Worker | null = null;

  const start = (): Worker => {
    const input: SearchWorkerInput = { path, pragmas: [...pragmas] };
    const started = new Worker(WORKER_ENTRY, { workerData: input });
    started.unref();
    const stopped = (error: Error) => {
      if (worker !== started) return;
      worker = null;
      for (const waiter of waiting.values()) waiter.reject(error);
      waiting.clear();
    };
    started.on('message', (reply: SearchReply) => {
      const waiter = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (waiting.size === 0) started.unref();
      if ('error' in reply) waiter?.reject(errorFromInfo(reply.error));
      else waiter?.resolve(reply.hits.map(hitFrom));
    });
    started.on('error', stopped);
    started.on('exit', () => stopped(new Error('the programme search thread stopped')));
    return started;
  };

  return {
    search(search) {
      worker ??= start();
      const thread = worker;
      const id = nextId++;
      return new Promise<ProgrammeSearchHit[]>((resolve, reject) => {
        if (waiting.size === 0) thread.ref();
        waiting.set(id, { resolve, reject });
        const request: SearchRequest = { id, search };
        thread.postMessage(request);
      });
    },
    async close() {
      const thread = worker;
      worker = null;
      for (const waiter of waiting.values()) waiter.reject(new Error('the store was closed'));
      waiting.clear();
      if (thread !== null) await thread.terminate();
    },
  };
}
