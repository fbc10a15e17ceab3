// Preloaded into the test processes (poolOptions.forks.execArgv in vitest.config.ts and
// clients/typescript/vitest.config.ts), and so into every worker thread they start. Under
// Vitest the sources run as TypeScript, and the SQLite staging thread is started on its `.ts`
// entry (staging-worker.ts), which Node cannot load by itself.
//
// Each worker thread gets tsx's require hooks, and its `.ts` entry is required through them:
// Node's worker threads run a file entry through Module.runMain, which a `--require` preload
// may replace. Not tsx's `--import` loader: on Node 20 module hooks are not shared with worker
// threads and `--import tsx` registers in the main thread only; registered in each thread, its
// hooks run in a thread of their own, started with every staging thread, and
// `npx vitest run --project sqlite test/ingest/{ingest,merge,stale-guide}.test.ts` took 53 s
// against 19 s this way (and 13-17 s when the worker was built from source text).
'use strict';
const { isMainThread } = require('node:worker_threads');

if (!isMainThread) {
  require('tsx/cjs/api').register();
  const Module = require('node:module');
  const runMain = Module.runMain;
  Module.runMain = function runTypeScriptMain(main, ...rest) {
    if (typeof main === 'string' && main.endsWith('.ts')) {
      require(main);
      return;
    }
    return runMain.call(this, main, ...rest);
  };
}
