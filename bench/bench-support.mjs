// Pieces a benchmark that serves a catalogue needs (bench/http.mjs, search.mjs, feeds.mjs): its
// options, a free port, a child process started and awaited until it says it is ready, a
// PostgreSQL database made when missing, a process's CPU time and memory, and a raw GET.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The value after `name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Starts `command` and resolves once its standard output matches `ready`. The output is read to
 * the end (a server logs a line per request) but kept only until then.
 */
export function startProcess(command, args, env, ready, stdin) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (out === null) return;
      out += chunk;
      if (ready.test(out)) {
        out = null;
        resolvePromise(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${out}`)));
    if (stdin !== undefined) child.stdin.end(stdin);
  });
}

/** Creates the database `url` names when the server has none of that name. */
export async function ensurePostgresDatabase(url) {
  const { default: pg } = await import('pg');
  const parsed = new URL(url);
  const admin = new pg.Client({ connectionString: url.replace(parsed.pathname, '/postgres') });
  await admin.connect();
  try {
    const name = parsed.pathname.slice(1);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/**
 * A bench catalogue's store, opened with the built code: the SQLite file at `sqlitePath`, or the
 * PostgreSQL database at `postgresUrl` (made when missing). `databaseUrl` is its DATABASE_URL.
 */
export async function openBenchStore(engine, { sqlitePath, postgresUrl, nowMs }) {
  if (engine === 'sqlite') {
    const { openSqliteStore } = await import(join(ROOT, 'dist/storage/sqlite/sqlite-store.js'));
    return { store: openSqliteStore({ path: sqlitePath, nowMs }), databaseUrl: sqlitePath };
  }
  await ensurePostgresDatabase(postgresUrl);
  const { openPostgresStore } = await import(join(ROOT, 'dist/storage/postgres/postgres-store.js'));
  return { store: await openPostgresStore({ url: postgresUrl, nowMs }), databaseUrl: postgresUrl };
}

/** CPU time (user + system, ms) a process has used so far, from /proc. */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's memory from /proc, MB: its peak (`VmHWM`) or now (`VmRSS`). */
export function rssMb(pid, which = 'VmHWM') {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${which}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/**
 * A GET answered as sent (fetch would undo a compression): status, headers, body bytes and the
 * time from request to last byte.
 */
export function rawGet(url, headers) {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    request(url, { headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolvePromise({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
