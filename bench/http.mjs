#!/usr/bin/env node
// HTTP benchmark: `npm run bench` (builds first). Serves a generated catalogue with
// `bin/onair serve` as shipped (every check on: key, access, rate limit; request logs at info)
// and, in the same run, the same bytes from a plain node:http server, then loads each route
// with wrk (Debian's package; one thread, leaving the server its core) and prints req/s,
// p50/p99 latency, the ratio to the plain server, server CPU per request and peak RSS.
//
// Options: --channels N (2000) --days N (30) --per-day N (30) --duration S (5) --warmup S (1,
//          unmeasured load of both servers before each case; 0 for none)
//          --connections N (32) --engines sqlite,postgres (sqlite) --write (also write
//          bench/http-results.md) --routes countries,search (only those) --rounds N (1: plain and
//          full in turn N times per route, the median ratio reported) --log-level L (the
//          server's LOG_LEVEL; a run with another than the default is labelled so). PostgreSQL
//          (scaled mode, with the rate limit in Redis) uses BENCH_POSTGRES_URL (default: database
//          onair_bench_http_v2_<size> on the local server, created when missing) and BENCH_REDIS_URL
//          (default redis://127.0.0.1:6379, keys under a prefix of their own).
//          --server-cpu-prof DIR writes a V8 CPU profile of each Onair server to DIR.
//          --keys N (50): the bench account's API keys, the requests rotating through them, one
//          after the other on every connection (many customers); 1: every request with one key,
//          as a single client sends it.
// The catalogue is cached (bench/out/, or the PostgreSQL database) and regenerated when its
// day has passed.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import {
  arg,
  ensureWrk,
  openBenchStore,
  freePort,
  rawGet,
  rssMb,
  removeWrkFiles,
  startProcess,
  wrkLoad,
} from './bench-support.mjs';
import { GRID_COUNTRY, generateCatalogue } from './catalogue-generator.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench/out');
const DAY = 86_400_000;

const options = {
  channels: Number(arg('--channels', 2000)),
  days: Number(arg('--days', 30)),
  perDay: Number(arg('--per-day', 30)),
  duration: Number(arg('--duration', 5)),
  warmup: Number(arg('--warmup', 1)),
  connections: Number(arg('--connections', 32)),
  write: process.argv.includes('--write'),
  engines: String(arg('--engines', 'sqlite')).split(','),
  rounds: Number(arg('--rounds', 1)),
  keys: Number(arg('--keys', 50)),
  /** Only the routes whose names start with one of these (comma-separated). */
  routes: arg('--routes', null)?.split(',') ?? null,
  serverCpuProf: arg('--server-cpu-prof', null),
  /** The server's LOG_LEVEL; its default (info: a line per request) when not given. */
  logLevel: arg('--log-level', null),
};
// A database per size, as SQLite has a file per size (bench/search.mjs says why).
const POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ??
  `postgres://postgres@127.0.0.1:5432/onair_bench_http_v2_${options.channels}x${options.days}x${options.perDay}`;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const dist = (path) => import(join(ROOT, 'dist', path));

const openStore = (engine, nowMs) =>
  openBenchStore(engine, {
    sqlitePath: join(OUT, `catalogue-v2-${options.channels}x${options.days}x${options.perDay}.db`),
    postgresUrl: POSTGRES_URL,
    nowMs,
  });

/** The catalogue of one engine for these options, generated for today when missing or stale. */
async function catalogue(engine, nowMs) {
  mkdirSync(OUT, { recursive: true });
  const metaPath = join(
    OUT,
    `catalogue-v2-${engine}-${options.channels}x${options.days}x${options.perDay}.json`,
  );
  const today = Math.floor(nowMs / DAY);
  const meta = existsSync(metaPath) ? JSON.parse(readFileSync(metaPath, 'utf8')) : null;
  if (engine === 'sqlite' && meta?.day !== today) {
    const path = join(OUT, `catalogue-v2-${options.channels}x${options.days}x${options.perDay}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
  const opened = await openStore(engine, nowMs);
  try {
    if (meta?.day === today && (await opened.store.catalogue.countChannels()) > 0) {
      return { databaseUrl: opened.databaseUrl, ...meta };
    }
    const started = Date.now();
    // Each generation replaces the channels' schedules from the new first day on.
    const made = await generateCatalogue(
      {
        ids: await dist('domain/catalogue-ids.js'),
        time: await dist('domain/xmltv-time.js'),
        details: await dist('domain/programme-details.js'),
      },
      opened.store,
      { ...options, futureDays: 7, nowMs },
    );
    const info = { day: today, ...made, generatedInMs: Date.now() - started };
    writeFileSync(metaPath, JSON.stringify(info));
    return { databaseUrl: opened.databaseUrl, ...info };
  } finally {
    await opened.store.close();
  }
}

/** A bench account with a raised limit and --keys keys (requests rotate through them). */
async function benchKeys(engine, nowMs) {
  const { issueApiKey } = await dist('accounts/account-service.js');
  const { store } = await openStore(engine, nowMs);
  try {
    const email = `bench-${nowMs}@onair.local`;
    const account = await store.accounts.createAccount(
      { email, verifiedAt: nowMs, accessUntil: null, rateLimit: 10_000_000 },
      nowMs,
    );
    const keys = [];
    for (let i = 0; i < options.keys; i++) {
      keys.push((await issueApiKey(store.accounts, account.id, `bench ${i}`, nowMs)).key);
    }
    return keys;
  } finally {
    await store.close();
  }
}

/** Where the plain server sends the bytes Onair sent for `path` on `engine` (in `encoding`). */
const plainPath = (engine, path, encoding) => `/${engine}${encoding ? `/${encoding}` : ''}${path}`;

/** Loads one URL with wrk (bench-support.mjs), with this run's connections. */
const load = (url, keys, pid, duration = options.duration, headers = {}) =>
  wrkLoad(url, { keys, pid, duration, headers, connections: options.connections, out: OUT });

ensureWrk();
const nowMs = Date.now();
execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
const { channelIdFor } = await dist('domain/catalogue-ids.js');
const { programmeIdFor } = await dist('domain/programme-id.js');
const { formatXmltvUtc } = await dist('domain/xmltv-time.js');
const channel = channelIdFor('bench0.uk');
// Today's first programme (every generated day has one at midnight UTC).
const programme = programmeIdFor(channel, formatXmltvUtc(Math.floor(nowMs / DAY) * DAY));

const scenarios = [
  ['countries', '/api/v1/countries'],
  ['channels of a country', '/api/v1/countries/UK/channels'],
  ['search', '/api/v1/channels/search?q=news'],
  ['programmes, 7 days (default)', `/api/v1/channels/${channel}/programmes`],
  ['programmes, today', `/api/v1/channels/${channel}/programmes?days=today`],
  ['programmes, days=all', `/api/v1/channels/${channel}/programmes?days=all`],
  ['programme detail', `/api/v1/channels/${channel}/programmes/${programme}`],
  ['guide, 100 channels, 3 hours', `/api/v1/guide?country=${GRID_COUNTRY}&limit=100`],
  ['now/next, 100 channels', `/api/v1/now?country=${GRID_COUNTRY}&limit=100`],
  // As guide apps ask: compressed (the answer is compressed once and kept; the plain server
  // sends the same compressed bytes).
  ['guide, 100 channels, 3 hours, gzip', `/api/v1/guide?country=${GRID_COUNTRY}&limit=100`, 'gzip'],
  ['now/next, 100 channels, gzip', `/api/v1/now?country=${GRID_COUNTRY}&limit=100`, 'gzip'],
].filter(([name]) => options.routes === null || options.routes.some((r) => name.startsWith(r)));

/**
 * The cold guide, timed on a server just started, before anything else asks it: 500-channel
 * grids of 3 hours for instants never asked before (so no answer is cached), one request at a
 * time, from request to last byte, uncompressed (compression is a separate cost, paid once
 * per answer). The first one also makes every rich entry it shows; the next 20, each 7 minutes
 * later, find most of theirs kept (answers/guide-answers.ts, the entry cache).
 */
async function coldGuide(engine, url, keys) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < 21; i++) {
    const from = new Date(Math.floor(nowMs / 60_000) * 60_000 + (i + 1) * 7 * 60_000);
    const path = `/api/v1/guide?country=${GRID_COUNTRY}&limit=500&from=${from.toISOString()}`;
    const started = performance.now();
    // node:http, not fetch: undici's own work on 3 MB (~10 ms here) is not the server's.
    const res = await rawGet(url + path, {
      'x-api-key': keys[i % keys.length],
      'accept-encoding': 'identity',
    });
    bytes = res.body.length;
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`cold guide answered ${res.status}`);
  }
  const [first, ...later] = times;
  later.sort((a, b) => a - b);
  return (
    `Cold guide, 500 channels × 3 hours, ${(bytes / 1024).toFixed(0)} KB (${engine}): the first ` +
    `${first.toFixed(1)} ms; 20 later windows (new answers, entries kept) median ` +
    `${later[10].toFixed(1)} ms, slowest ${later[19].toFixed(1)} ms.`
  );
}

const cold = [];
const servers = [];
const bodies = {};
let made;
for (const engine of options.engines) {
  made = await catalogue(engine, nowMs);
  const keys = await benchKeys(engine, nowMs);
  const port = await freePort();
  const child = await startProcess(
    process.execPath,
    [
      ...(options.serverCpuProf === null
        ? []
        : ['--cpu-prof', '--cpu-prof-dir', resolve(options.serverCpuProf)]),
      join(ROOT, 'bin/onair'),
      'serve',
    ],
    {
      DATABASE_URL: made.databaseUrl,
      PORT: String(port),
      // As shipped (request logs at info) unless --log-level says otherwise.
      ...(options.logLevel === null ? {} : { LOG_LEVEL: options.logLevel }),
      // Scaled mode is PostgreSQL and Redis: the rate limit is one Lua call per turn of the
      // server's event loop.
      ...(engine === 'postgres'
        ? { REDIS_URL: REDIS_URL, REDIS_KEY_PREFIX: `onair-bench:${nowMs}:` }
        : {}),
    },
    /serving/,
  );
  const url = `http://127.0.0.1:${port}`;
  cold.push(await coldGuide(engine, url, keys));
  for (const [, path, encoding] of scenarios) {
    const res = await rawGet(url + path, {
      'x-api-key': keys[0],
      'accept-encoding': encoding ?? '',
    });
    if (res.status !== 200) throw new Error(`${engine} ${path} answered ${res.status}`);
    if ((res.headers['content-encoding'] ?? '') !== (encoding ?? '')) {
      throw new Error(
        `${engine} ${path} answered in "${res.headers['content-encoding']}", not "${encoding}"`,
      );
    }
    bodies[plainPath(engine, path, encoding)] = { body: res.body.toString('base64'), encoding };
  }
  servers.push({ engine, child, url, keys });
}
const plainPort = await freePort();
const plain = await startProcess(
  process.execPath,
  [join(ROOT, 'bench/plain-server.mjs'), String(plainPort)],
  {},
  /ready/,
  JSON.stringify(bodies),
);
const plainUrl = `http://127.0.0.1:${plainPort}`;

const rows = [];
for (const [name, path, encoding] of scenarios) {
  const headers = encoding === undefined ? {} : { 'accept-encoding': encoding };
  for (const server of servers) {
    const plainUrlOf = `${plainUrl}${plainPath(server.engine, path, encoding)}`;
    const bytes = Buffer.from(
      bodies[plainPath(server.engine, path, encoding)].body,
      'base64',
    ).length;
    // Plain and full in turn, `--rounds` times; the round with the median ratio is reported,
    // so a burst of other work on the machine during one case does not decide the result.
    // Both servers first answer the route unmeasured for a while: a case measures them warm
    // (compiled code, filled caches), whichever case comes first after start-up.
    if (options.warmup > 0) {
      await load(plainUrlOf, server.keys, plain.pid, options.warmup, headers);
      await load(server.url + path, server.keys, server.child.pid, options.warmup, headers);
    }
    const rounds = [];
    for (let round = 0; round < options.rounds; round++) {
      const base = await load(plainUrlOf, server.keys, plain.pid, options.duration, headers);
      const full = await load(
        server.url + path,
        server.keys,
        server.child.pid,
        options.duration,
        headers,
      );
      rounds.push({ base, full, ratio: full.rps / base.rps });
    }
    rounds.sort((x, y) => x.ratio - y.ratio);
    const { base, full, ratio } = rounds[Math.floor((rounds.length - 1) / 2)];
    const label = servers.length > 1 ? `${name} (${server.engine})` : name;
    rows.push({ name: label, bytes, full, base, ratio });
    process.stderr.write(
      `${label}: ${Math.round(full.rps)} req/s vs ${Math.round(base.rps)}; ` +
        `CPU ${full.cpuUs.toFixed(0)} µs vs ${base.cpuUs.toFixed(0)} µs per request\n`,
    );
  }
}
const rss = servers.map((s) => `${s.engine} ${rssMb(s.child.pid)} MB`).join(', ');
for (const server of servers) server.child.kill('SIGTERM');
removeWrkFiles();
plain.kill('SIGTERM');

const table = [
  '| route | body | Onair req/s | p50 / p99 ms | plain node:http req/s | p50 / p99 ms | ratio | server CPU µs/request, Onair / plain |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${(r.bytes / 1024).toFixed(1)} KB | ${Math.round(r.full.rps)}${r.full.bad ? ` (${r.full.bad} failed)` : ''} | ${r.full.p50} / ${r.full.p99} | ${Math.round(r.base.rps)} | ${r.base.p50} / ${r.base.p99} | ${(r.ratio * 100).toFixed(0)} % | ${r.full.cpuUs.toFixed(0)} / ${r.base.cpuUs.toFixed(0)} |`,
  ),
];
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
  .toString()
  .trim();
const summary = [
  `Catalogue: ${made.channels} channels, ${made.programmes.toLocaleString('en')} programmes ` +
    `(${options.engines.join(', ')}); wrk, 1 thread, ${options.connections} connections, ${options.duration} s per case, ` +
    `${options.keys === 1 ? 'one API key' : `${options.keys} API keys in turn`}; ` +
    `server LOG_LEVEL ${options.logLevel ?? 'as shipped (info)'}; Onair peak RSS: ${rss}.`,
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB; Node ${process.version}; commit ${commit}.`,
];
console.log([...summary, '', ...table, '', ...cold].join('\n'));
if (options.write) {
  // Written as the repository's formatter would write it, so `npm run lint` passes after a run.
  const file = join(ROOT, 'bench/http-results.md');
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(file)) ?? {};
  const text = [...summary, '', ...table, '', ...cold, ''].join('\n');
  writeFileSync(file, await prettier.format(text, { ...config, filepath: file }));
}
process.exit(0);
