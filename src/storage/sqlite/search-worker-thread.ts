import { createRequire } from 'node:module';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { createSqliteProgrammeSearch } from './programme-search.js';
import {
  hitValues,
  type SearchReply,
  type SearchRequest,
  type SearchWorkerInput,
} from './search-worker-protocol.js';
import { errorInfo } from '../thread-errors.js';

// Required rather than imported, as in staging-worker-thread.ts: the ESM loader's scan of the
// CommonJS driver's exports would be paid again at each thread's start.
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

/**
 * The search thread's entry, started by createSearchWorker (search-worker.ts): its own
 * read-only connection to the catalogue file, and the same search as in any thread
 * (programme-search.ts). Searches are answered one at a time, in the order they came.
 */
function serveSearches(port: MessagePort, input: SearchWorkerInput): void {
  let search: ReturnType<typeof createSqliteProgrammeSearch> | null = null;
  let failure: unknown = null;
  try {
    const db = new Database(input.path, { fileMustExist: true, readonly: true });
    for (const pragma of input.pragmas) db.pragma(pragma);
    search = createSqliteProgrammeSearch(db);
  } catch (error) {
    failure = error;
  }
  const answer = async (request: SearchRequest): Promise<SearchReply> => {
    if (search === null) return { id: request.id, error: errorInfo(failure) };
    try {
      return { id: request.id, hits: (await search(request.search)).map(hitValues) };
    } catch (error) {
      return { id: request.id, error: errorInfo(error) };
    }
  };
  // Each search's reads are synchronous, so one answers before the next message is taken; the
  // chain keeps that order should a read ever wait.
  let queue = Promise.resolve();
  port.on('message', (request: SearchRequest) => {
    queue = queue.then(async () => port.postMessage(await answer(request)));
  });
}

if (parentPort !== null) serveSearches(parentPort, workerData as SearchWorkerInput);
