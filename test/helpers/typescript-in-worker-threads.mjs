// Preloaded into the test processes (poolOptions.forks.execArgv in vitest.config.ts and
// clients/typescript/vitest.config.ts), and so into every worker thread they start: under
// Vitest the sources run as TypeScript, and a worker thread started on a `.ts` entry (the
// SQLite staging thread, staging-worker.ts) needs a loader of its own. On Node 20 module hooks
// are not shared between threads, and `--import tsx` registers itself in the main thread only,
// so this registers tsx's loader in each worker thread.
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) {
  const { register } = await import('tsx/esm/api');
  register();
}
