// Where an ingest's (or any run's) database time goes, statement by statement, without a scratch
// build: preload this module and every SQLite statement (better-sqlite3, in every thread: worker
// threads inherit the preload) and every PostgreSQL query sent as a promise (node-postgres) that
// takes at least STATEMENT_TIMES_MIN_MS milliseconds (default 20) is written to stderr as it ends:
//
//   node --import ./bench/statement-times.mjs bench/ingest.mjs --child worker bench/out/guide.xml
//   STATEMENT_TIMES_MIN_MS=100 node --import ./bench/statement-times.mjs bench/ingest.mjs \
//     --child postgres bench/out/guide.xml
//
// Each line: `statement <ms> ms [<thread>] <the statement's first 120 characters>`. SQLite's
// `COMMIT` is a statement of its own (better-sqlite3's transactions run it as one), and in WAL
// mode it includes the automatic checkpoint that follows a large transaction. A PostgreSQL COPY
// streams (no promise) and is not timed here: its time is the ingest's read (bench/INGEST.md).
// For measuring only: wrapping each call costs about a microsecond.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { isMainThread, threadId } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const minMs = Number(process.env.STATEMENT_TIMES_MIN_MS ?? 20);
const thread = isMainThread ? 'main' : `thread ${threadId}`;

function report(ms, sql) {
  if (ms < minMs) return;
  const text = String(sql).replace(/\s+/g, ' ').trim().slice(0, 120);
  process.stderr.write(`statement ${ms.toFixed(1)} ms [${thread}] ${text}\n`);
}

/** Wraps `object[name]` so each call is timed; `sqlOf(this, args)` names the statement. */
function timed(object, name, sqlOf) {
  const original = object[name];
  object[name] = function (...args) {
    const started = performance.now();
    const result = original.apply(this, args);
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      return result.then((value) => {
        report(performance.now() - started, sqlOf(this, args));
        return value;
      });
    }
    report(performance.now() - started, sqlOf(this, args));
    return result;
  };
}

function optional(name) {
  try {
    return require(name);
  } catch {
    return null;
  }
}

const Database = optional('better-sqlite3');
if (Database !== null) {
  timed(Database.prototype, 'exec', (_db, [sql]) => sql);
  // Statements are made by `prepare`; their class is reached through one.
  const probe = new Database(':memory:');
  const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  for (const method of ['run', 'get', 'all'])
    timed(Statement, method, (statement) => statement.source);
}

const pg = optional('pg');
if (pg !== null) {
  // Only calls that return a promise are timed (see the header): a submittable passes through.
  timed(pg.Client.prototype, 'query', (_client, [query]) =>
    typeof query === 'string' ? query : (query?.text ?? '(submittable)'),
  );
}
