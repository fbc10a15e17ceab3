import type { ProgrammeSearch, ProgrammeSearchHit } from '../catalogue-reader.js';
import type { ErrorInfo } from './thread-errors.js';

// The messages between the store's search client (search-worker.ts) and its search thread
// (search-worker-thread.ts), both sides typed by this one file.

/** What the search thread is started with (its `workerData`). */
export interface SearchWorkerInput {
  /** The catalogue file, opened read-only by the thread (it must exist). */
  path: string;
  /** Run on the thread's connection once opened. */
  pragmas: string[];
}

export interface SearchRequest {
  id: number;
  search: ProgrammeSearch;
}

/** The answer to the request of the same id: its hits, or the error it met. */
export type SearchReply =
  { id: number; hits: ProgrammeSearchHit[] } | { id: number; error: ErrorInfo };
