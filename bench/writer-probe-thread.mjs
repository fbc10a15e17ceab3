// The writer probe of bench/ingest.mjs (startWriterProbe): in a thread of the ingest's child,
// writes every 10 ms as the server would, an account write and a catalogue writer
// (`BEGIN IMMEDIATE; ROLLBACK`), and reports the longest wait of each when told to stop.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';

// The driver of the build under test, whichever checkout it comes from.
const Database = createRequire(import.meta.url)(workerData.driver);

const open = (file) => {
  const db = new Database(file);
  db.pragma('busy_timeout = 600000');
  return db;
};
const probes = [
  {
    db: open(workerData.path),
    sql: ['BEGIN', "UPDATE data_versions SET version = version WHERE name = 'auth'", 'ROLLBACK'],
    longest: 0,
  },
  ...(existsSync(workerData.catalogue)
    ? [{ db: open(workerData.catalogue), sql: ['BEGIN IMMEDIATE', 'ROLLBACK'], longest: 0 }]
    : []),
];
const sleep = new Int32Array(new SharedArrayBuffer(4));
let stop = false;
const failures = [];
parentPort.on('message', () => {
  stop = true;
});
while (!stop) {
  for (const probe of probes) {
    const started = performance.now();
    try {
      for (const sql of probe.sql) probe.db.exec(sql);
    } catch (error) {
      // Gave up (SQLITE_BUSY): counted as a wait as long as it was.
      failures.push(`${error.code} after ${Math.round(performance.now() - started)} ms`);
      if (probe.db.inTransaction) probe.db.exec('ROLLBACK');
    }
    probe.longest = Math.max(probe.longest, performance.now() - started);
  }
  Atomics.wait(sleep, 0, 0, 10);
  await new Promise((resolve) => setImmediate(resolve));
}
for (const probe of probes) probe.db.close();
parentPort.postMessage({
  account: probes[0].longest,
  catalogue: probes[1]?.longest ?? null,
  failures,
});
