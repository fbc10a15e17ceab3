// Pieces a benchmark that serves a catalogue needs (bench/http.mjs, search.mjs, feeds.mjs): its
// options, a free port, a child process started and awaited until it says it is ready, a
// PostgreSQL database made when missing, a process's CPU time and memory, a raw GET, and the
// load of a server with wrk.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The value after `name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
}

/**
 * A catalogue writer that stores nothing: each staged programme goes to `onProgramme` (if
 * given), so a bench measures the ingest's pipeline (read, decode, parse, map) without storage.
 */
export function discardingWriter(onProgramme = () => {}) {
  return {
    async beginIngest() {
      let programmes = 0;
      return {
        stageChannel() {},
        stageProgramme(row) {
          programmes++;
          onProgramme(row);
        },
        async drain() {},
        async analyse() {
          return {
            programmes,
            exactDuplicates: 0,
            conflictingDuplicates: 0,
            duplicateSlots: 0,
            overlaps: null,
            duplicateSamples: [],
          };
        },
        async commit() {
          return {
            channelsAdded: 0,
            channelsUpdated: 0,
            programmesAdded: 0,
            programmesUpdated: 0,
            programmesUnchanged: 0,
            programmesRemoved: 0,
            programmesPruned: 0,
          };
        },
        async abort() {},
      };
    },
  };
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

/** `use` with a client of its own on the database `url`, ended after. */
async function withPostgresClient(url, use) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Creates the database `url` names when the server has none of that name. */
export async function ensurePostgresDatabase(url) {
  const parsed = new URL(url);
  await withPostgresClient(url.replace(parsed.pathname, '/postgres'), async (admin) => {
    const name = parsed.pathname.slice(1);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  });
}

/**
 * Runs `sql` on the database `url` over a connection of its own, without the store's query
 * timeout: an ANALYZE of 10 million programmes can outlast a request's.
 */
export async function runPostgres(url, sql) {
  await withPostgresClient(url, (client) => client.query(sql));
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

/**
 * A guide of the test corpus (`file`, plain or gzip) ingested with the build at `dist` into a
 * catalogue of its own, its channels in `country`: on SQLite in a temporary directory, on
 * PostgreSQL (`engine` 'postgres') in a database made for it on the local server
 * (BENCH_POSTGRES_URL's server, default 127.0.0.1) and analysed after the ingest, as
 * autovacuum does within a minute of one. Gives the store, its channels' programmes (of any
 * time) and `close`, which removes the catalogue.
 */
export async function corpusCatalogue(dist, file, country, engine = 'sqlite') {
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const { ingestXmltv } = await load('catalogue/ingest/ingest-xmltv.js');
  const nowMs = Date.now();
  let store;
  let close;
  let analyze = async () => {};
  if (engine === 'sqlite') {
    const { openSqliteStore } = await load('storage/sqlite/sqlite-store.js');
    const dir = mkdtempSync(join(tmpdir(), 'onair-corpus-'));
    store = openSqliteStore({ path: join(dir, 'onair.db'), nowMs });
    close = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const { openPostgresStore } = await load('storage/postgres/postgres-store.js');
    const server = new URL(
      process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/x',
    );
    const name = `onair_corpus_${process.pid}_${country.toLowerCase()}`;
    const url = server.href.replace(server.pathname, `/${name}`);
    const admin = server.href.replace(server.pathname, '/postgres');
    await runPostgres(admin, `DROP DATABASE IF EXISTS ${name}`);
    await ensurePostgresDatabase(url);
    store = await openPostgresStore({ url, nowMs });
    analyze = () => runPostgres(url, 'ANALYZE');
    close = async () => {
      await store.close();
      await runPostgres(admin, `DROP DATABASE IF EXISTS ${name}`);
    };
  }
  try {
    let data = readFileSync(join(ROOT, 'test/fixtures/xmltv/corpus', file));
    if (file.endsWith('.gz')) data = gunzipSync(data);
    await ingestXmltv(
      store.ingest,
      { name: file, data },
      { country, assumeOffsetMinutes: 0, nowMs },
    );
    await analyze();
    const channels = await store.catalogue.listChannels(country);
    const read = await store.catalogue.programmesBetween(
      channels.map((c) => c.id),
      0,
      Number.MAX_SAFE_INTEGER,
    );
    return { store, channels, programmes: [...read.values()].flat(), close };
  } catch (error) {
    await close();
    throw error;
  }
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

/** wrk is Debian's package: installed when missing (as root, like the tests' tools), or named. */
export function ensureWrk() {
  const present = () => {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      return true;
    } catch (error) {
      // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
      return error.code !== 'ENOENT';
    }
  };
  if (present()) return;
  if (process.getuid?.() !== 0) {
    console.error("bench: wrk is missing: install Debian's wrk (sudo apt-get install wrk)");
    process.exit(1);
  }
  execFileSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq wrk'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Lines written once to a file under `out` (keys or paths for wrk's script), by content. */
const lineFiles = new Map();
function linesFile(out, kind, lines) {
  const text = `${lines.join('\n')}\n`;
  let path = lineFiles.get(text);
  if (path === undefined) {
    mkdirSync(out, { recursive: true });
    path = join(out, `wrk-${kind}-${process.pid}-${lineFiles.size}.txt`);
    writeFileSync(path, text);
    lineFiles.set(text, path);
  }
  return path;
}

/** Removes the files wrkLoad wrote. */
export function removeWrkFiles() {
  for (const path of lineFiles.values()) rmSync(path, { force: true });
  lineFiles.clear();
}

/**
 * Loads `url` with wrk (one thread, so the server keeps a core of its own; every request with
 * the next of `keys`, and when `paths` are given with the next of them: bench/wrk-keys.lua) and
 * measures the server: req/s and latency from wrk, and the server's own CPU time per answered
 * request (`pid`), which stays comparable when other work shares the machine.
 */
export async function wrkLoad(
  url,
  { keys, pid, duration, connections, headers = {}, paths = null, out },
) {
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid);
  const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--latency'];
  const pathsArg = paths === null ? '-' : linesFile(out, 'paths', paths);
  args.push('-s', join(ROOT, 'bench/wrk-keys.lua'), url, '--', linesFile(out, 'keys', keys));
  args.push(pathsArg);
  for (const [name, value] of Object.entries(headers)) args.push(`${name}: ${value}`);
  const output = await new Promise((resolvePromise, reject) =>
    execFile('wrk', args, (error, stdout) => (error ? reject(error) : resolvePromise(stdout))),
  );
  const line = /WRK-JSON (.*)/.exec(output)?.[1];
  if (line === undefined) throw new Error(`wrk printed no result: ${output}`);
  const result = JSON.parse(line);
  const cpu = pid === undefined ? 0 : cpuMs(pid) - cpuBefore;
  return {
    rps: result.requests / (result.durationUs / 1e6),
    p50: Math.round(result.p50Us / 100) / 10,
    p99: Math.round(result.p99Us / 100) / 10,
    cpuUs: (cpu * 1000) / Math.max(1, result.requests),
    requests: result.requests,
    bad: result.status + result.failed,
  };
}
