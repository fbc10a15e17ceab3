#!/usr/bin/env node
// Programme search benchmark: `npm run build && node bench/search.mjs`. Serves a generated
// catalogue (bench/catalogue-generator.mjs with rare titles: 2,000 channels × 30 days × 30 a day
// by default, 15 of the days ahead) with `bin/onair serve` as shipped (every check on, request
// log at info), and loads GET /api/v1/programmes/search with wrk (one thread, leaving the
// server its core), every request a different query so no answer is served from a cache:
//
// - a rare title: a made-up word few programmes have (`q=kqabc`, the word changing per request);
// - a frequent word: `q=news` (a third of the programmes), `from` spread over a day (421 s
//   apart, and a second later each time round), as a day's queries would be;
// - the same in one country (`&country=UK`, a tenth of the channels);
// - two words, the last a prefix (`q=news%20curr`), `from` moving as above.
//
// In the same run, a plain node:http server (bench/plain-server.mjs) sends the bytes of one
// answer of each case, for the ratio. Each case is loaded unmeasured for 2 s first (on other
// paths). Prints p50/p99 latency, req/s, the ratio and the server's CPU per request.
//
// Options: --channels N (2000) --days N (30) --per-day N (30) --duration S (5)
//          --connections N (32) --engines sqlite,postgres (both) --cases LIST (names' starts)
//          --log-level L (the server's LOG_LEVEL; default as shipped) --paths N (150000 a case)
//          --server-cpu-prof DIR (a V8 CPU profile of each Onair server, written to DIR)
// PostgreSQL uses BENCH_POSTGRES_URL (default: database onair_bench_search_<size> on the local
// server, e.g. onair_bench_search_2000x30x30, created when missing) and Redis BENCH_REDIS_URL (default redis://127.0.0.1:6379).
// The catalogue is cached (bench/out/, or that database) and regenerated when its day has passed.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  arg,
  ensureWrk,
  freePort,
  openBenchStore,
  removeWrkFiles,
  runPostgres,
  startProcess,
  wrkLoad,
} from './bench-support.mjs';
import { generateCatalogue, rareWordsAhead } from './catalogue-generator.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench/out');
const DAY = 86_400_000;
const FUTURE_DAYS = 15;

const options = {
  channels: Number(arg('--channels', 2000)),
  days: Number(arg('--days', 30)),
  perDay: Number(arg('--per-day', 30)),
  duration: Number(arg('--duration', 5)),
  connections: Number(arg('--connections', 32)),
  engines: String(arg('--engines', 'sqlite,postgres')).split(','),
  cases: arg('--cases', null)?.split(',') ?? null,
  logLevel: arg('--log-level', null),
  serverCpuProf: arg('--server-cpu-prof', null),
};
/** Distinct paths per case: more than the fastest case answers in a run (~20,000 req/s × 5 s). */
const PATHS_PER_CASE = Number(arg('--paths', 150_000));
/** Paths of the unmeasured load before each case (2 s of it). */
const WARMUP_PATHS = 40_000;
const SIZE = `${options.channels}x${options.days}x${options.perDay}`;
// A database per size, as SQLite has a file per size: one shared by sizes held the larger
// catalogue after a run of the smaller (its channels a subset, generated again into it).
const POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ?? `postgres://postgres@127.0.0.1:5432/onair_bench_search_${SIZE}`;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const dist = (path) => import(join(ROOT, 'dist', path));

const openStore = (engine, nowMs) =>
  openBenchStore(engine, {
    sqlitePath: join(OUT, `search-v1-${SIZE}.db`),
    postgresUrl: POSTGRES_URL,
    nowMs,
  });

/** The catalogue of one engine, generated for today when missing or stale; and a key. */
async function prepare(engine, nowMs) {
  mkdirSync(OUT, { recursive: true });
  const metaPath = join(OUT, `search-v1-${engine}-${SIZE}.json`);
  const today = Math.floor(nowMs / DAY);
  const meta = existsSync(metaPath) ? JSON.parse(readFileSync(metaPath, 'utf8')) : null;
  if (engine === 'sqlite' && meta?.day !== today) {
    // Both files: the accounts file and the catalogue file beside it.
    for (const file of [`search-v1-${SIZE}.db`, `search-v1-${SIZE}.catalogue.db`]) {
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(OUT, file + suffix), { force: true });
    }
  }
  const opened = await openStore(engine, nowMs);
  try {
    let info = meta;
    if (meta?.day !== today || (await opened.store.catalogue.countChannels()) === 0) {
      const started = Date.now();
      const made = await generateCatalogue(
        {
          ids: await dist('domain/catalogue-ids.js'),
          time: await dist('domain/xmltv-time.js'),
          details: await dist('domain/programme-details.js'),
          search: await dist('domain/programme-search.js'),
        },
        opened.store,
        { ...options, futureDays: FUTURE_DAYS, nowMs, rareTitles: true },
      );
      info = { day: today, ...made, generatedInMs: Date.now() - started };
      // What PostgreSQL's autovacuum does soon after an insert this large (statistics, the
      // pages marked visible): measured settled, not while autovacuum reads the catalogue.
      if (engine === 'postgres') await runPostgres(POSTGRES_URL, 'VACUUM ANALYZE');
      writeFileSync(metaPath, JSON.stringify(info));
      process.stderr.write(
        `${engine}: generated ${made.programmes} programmes in ${info.generatedInMs} ms\n`,
      );
    }
    const { issueApiKey } = await dist('accounts/account-service.js');
    const account = await opened.store.accounts.createAccount(
      {
        email: `search-${nowMs}@onair.local`,
        verifiedAt: nowMs,
        accessUntil: null,
        rateLimit: 10_000_000,
      },
      nowMs,
    );
    const { key } = await issueApiKey(opened.store.accounts, account.id, 'bench', nowMs);
    return { databaseUrl: opened.databaseUrl, key, info };
  } finally {
    await opened.store.close();
  }
}

/**
 * Loads `pathAt(0…)` with wrk, a different path per request: more paths than a run can ask for,
 * so none is answered twice (a repeat would come from the answer cache; `repeated` says if so).
 */
async function load(url, key, pid, pathAt, paths = PATHS_PER_CASE, duration = options.duration) {
  const list = Array.from({ length: paths }, (_, i) => pathAt(i));
  const result = await wrkLoad(url, {
    keys: [key],
    pid,
    paths: list,
    duration,
    connections: options.connections,
    out: OUT,
  });
  return { ...result, repeated: result.requests > paths };
}

ensureWrk();
const nowMs = Date.now();
const startSecond = Math.floor(nowMs / 1000) * 1000 + 60_000;
const fromAt = (i) => encodeURIComponent(new Date(startSecond + i * 1000).toISOString());
// A frequent word's search reads up to where its next match starts, so a run's `from` all in
// one minute measured the hour of the run (bench/RESULTS.md): these are spread over a day, 421 s
// apart, a second later each time round (distinct for 205 × 421 = 86,305 requests).
const DAY_STEPS = 205;
const fromOverDay = (i) =>
  encodeURIComponent(
    new Date(
      startSecond + (i % DAY_STEPS) * 421_000 + (Math.floor(i / DAY_STEPS) % 421) * 1000,
    ).toISOString(),
  );
const rare = rareWordsAhead({ ...options, futureDays: FUTURE_DAYS, nowMs });
const base = '/api/v1/programmes/search';
const cases = [
  // The word changes per request, and `from` each time the words come round: no pair repeats.
  [
    'rare title',
    (i) => `${base}?q=${rare[i % rare.length]}&from=${fromAt(Math.floor(i / rare.length))}`,
  ],
  ['frequent word (news)', (i) => `${base}?q=news&from=${fromOverDay(i)}`],
  ['frequent word, one country', (i) => `${base}?q=news&country=UK&from=${fromOverDay(i)}`],
  ['two words, last a prefix', (i) => `${base}?q=news%20curr&from=${fromOverDay(i)}`],
].filter(([name]) => options.cases === null || options.cases.some((c) => name.startsWith(c)));

const rows = [];
for (const engine of options.engines) {
  const { databaseUrl, key, info } = await prepare(engine, nowMs);
  const port = await freePort();
  const server = await startProcess(
    process.execPath,
    [
      ...(options.serverCpuProf === null
        ? []
        : ['--cpu-prof', '--cpu-prof-dir', resolve(options.serverCpuProf)]),
      join(ROOT, 'bin/onair'),
      'serve',
    ],
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      ...(options.logLevel === null ? {} : { LOG_LEVEL: options.logLevel }),
      ...(engine === 'postgres'
        ? { REDIS_URL, REDIS_KEY_PREFIX: `onair-bench-search:${nowMs}:` }
        : {}),
    },
    /serving/,
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    // One answer of each case, for the plain server and to check the case finds something.
    const bodies = {};
    for (const [name, pathAt] of cases) {
      const res = await fetch(url + pathAt(0), { headers: { 'x-api-key': key } });
      const body = Buffer.from(await res.arrayBuffer());
      const found = JSON.parse(body.toString()).results?.length;
      if (res.status !== 200 || !(found > 0))
        throw new Error(`${engine} ${name}: ${res.status}, ${found} results`);
      bodies[`/${name.replace(/\W+/g, '-')}`] = { body: body.toString('base64'), encoding: null };
    }
    const plainPort = await freePort();
    const plain = await startProcess(
      process.execPath,
      [join(ROOT, 'bench/plain-server.mjs'), String(plainPort)],
      {},
      /ready/,
      JSON.stringify(bodies),
    );
    try {
      for (const [name, pathAt] of cases) {
        const plainPath = `/${name.replace(/\W+/g, '-')}`;
        const plainUrl = `http://127.0.0.1:${plainPort}`;
        // Unmeasured first: the server's code and caches warm, on paths not asked after.
        await load(url, key, server.pid, (i) => pathAt(PATHS_PER_CASE + i), WARMUP_PATHS, 2);
        const reference = await load(plainUrl, key, plain.pid, () => plainPath, 1);
        const full = await load(url, key, server.pid, pathAt);
        const bytes = Buffer.from(bodies[plainPath].body, 'base64').length;
        rows.push({ engine, name, bytes, full, reference, programmes: info.programmes });
        process.stderr.write(
          `${engine} ${name}: p50 ${full.p50} ms, p99 ${full.p99} ms, ${Math.round(full.rps)} req/s ` +
            `(plain ${Math.round(reference.rps)} req/s), CPU ${full.cpuUs.toFixed(0)} µs/request, ` +
            `${full.bad} bad of ${full.requests}${full.repeated ? ', PATHS REPEATED' : ''}\n`,
        );
      }
    } finally {
      plain.kill();
    }
  } finally {
    server.kill();
  }
}
removeWrkFiles();

console.log(
  `\n${options.channels} channels × ${options.days} days × ${options.perDay} a day; wrk, 1 thread, ` +
    `${options.connections} connections, ${options.duration} s per case; ` +
    `LOG_LEVEL ${options.logLevel ?? 'as shipped (info)'}; ${cpus().length} × ${cpus()[0]?.model}, ` +
    `Node ${process.version}\n`,
);
console.log(
  '| engine | case | bytes | p50 ms | p99 ms | req/s | plain req/s | ratio | server CPU µs/request | non-2xx |',
);
console.log('| --- | --- | --: | --: | --: | --: | --: | --: | --: | --: |');
for (const { engine, name, bytes, full, reference } of rows) {
  console.log(
    `| ${engine} | ${name} | ${bytes} | ${full.p50} | ${full.p99} | ${Math.round(full.rps)} | ` +
      `${Math.round(reference.rps)} | ${(full.rps / reference.rps).toFixed(3)} | ` +
      `${full.cpuUs.toFixed(0)} | ${full.bad}${full.repeated ? ' (paths repeated)' : ''} |`,
  );
}
