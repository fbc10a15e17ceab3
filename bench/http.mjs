#!/usr/bin/env node
// HTTP benchmark: `npm run bench` (builds first). Serves a generated catalogue with
// `bin/onair serve` (every check on: key, access, rate limit) and, in the same run, the same
// bytes from a plain node:http server, then loads each route with autocannon and prints
// req/s, p50/p99 latency, the ratio to the plain server and the server's peak RSS.
//
// Options: --channels N (2000) --days N (30) --per-day N (30) --duration S (5)
//          --connections N (32) --write (also write bench/RESULTS.md)
// The catalogue is cached in bench/out/ and regenerated when its day has passed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { generateCatalogue } from './catalogue-generator.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench/out');
const DAY = 86_400_000;

function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
}
const options = {
  channels: Number(arg('--channels', 2000)),
  days: Number(arg('--days', 30)),
  perDay: Number(arg('--per-day', 30)),
  duration: Number(arg('--duration', 5)),
  connections: Number(arg('--connections', 32)),
  write: process.argv.includes('--write'),
};

const dist = (path) => import(join(ROOT, 'dist', path));

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** The catalogue file for these options, generated for today when missing or stale. */
async function catalogue(nowMs) {
  mkdirSync(OUT, { recursive: true });
  const name = `catalogue-${options.channels}x${options.days}x${options.perDay}`;
  const path = join(OUT, `${name}.db`);
  const metaPath = join(OUT, `${name}.json`);
  const today = Math.floor(nowMs / DAY);
  const meta = existsSync(metaPath) ? JSON.parse(readFileSync(metaPath, 'utf8')) : null;
  if (meta?.day === today && existsSync(path)) return { path, ...meta };
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const { openSqliteStore } = await dist('storage/sqlite/sqlite-store.js');
  const store = openSqliteStore({ path, nowMs });
  const started = Date.now();
  const made = await generateCatalogue(
    {
      ids: await dist('domain/catalogue-ids.js'),
      time: await dist('domain/xmltv-time.js'),
    },
    store,
    { ...options, futureDays: 7, nowMs },
  );
  await store.close();
  const info = { day: today, ...made, generatedInMs: Date.now() - started };
  writeFileSync(metaPath, JSON.stringify(info));
  return { path, ...info };
}

/** A bench account with a raised limit and many keys (requests rotate through them). */
async function benchKeys(path, nowMs) {
  const { openSqliteStore } = await dist('storage/sqlite/sqlite-store.js');
  const { issueApiKey } = await dist('accounts/account-service.js');
  const store = openSqliteStore({ path, nowMs });
  const email = `bench-${nowMs}@onair.local`;
  const account = await store.accounts.createAccount(
    { email, verifiedAt: nowMs, accessUntil: null, rateLimit: 10_000_000 },
    nowMs,
  );
  const keys = [];
  for (let i = 0; i < 50; i++)
    keys.push((await issueApiKey(store.accounts, account.id, `bench ${i}`, nowMs)).key);
  await store.close();
  return keys;
}

function startProcess(command, args, env, ready, stdin) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (ready.test(out)) resolvePromise(child);
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${out}`)));
    if (stdin !== undefined) child.stdin.end(stdin);
  });
}

function peakRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function load(url, keys) {
  let i = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'x-api-key': keys[i++ % keys.length] },
        }),
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bad };
}

const nowMs = Date.now();
execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
const made = await catalogue(nowMs);
const keys = await benchKeys(made.path, nowMs);
const { channelIdFor } = await dist('domain/catalogue-ids.js');
const channel = channelIdFor('bench0.uk');

const scenarios = [
  ['countries', '/api/v1/countries'],
  ['channels of a country', '/api/v1/countries/UK/channels'],
  ['search', '/api/v1/channels/search?q=news'],
  ['programmes, 7 days (default)', `/api/v1/channels/${channel}/programmes`],
  ['programmes, today', `/api/v1/channels/${channel}/programmes?days=today`],
  ['programmes, days=all', `/api/v1/channels/${channel}/programmes?days=all`],
];

const onairPort = await freePort();
const onair = await startProcess(
  process.execPath,
  [join(ROOT, 'bin/onair'), 'serve'],
  { DATABASE_URL: made.path, PORT: String(onairPort), LOG_LEVEL: 'warn' },
  /serving/,
);
const onairUrl = `http://127.0.0.1:${onairPort}`;
const bodies = {};
for (const [, path] of scenarios) {
  const res = await fetch(onairUrl + path, { headers: { 'x-api-key': keys[0] } });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  bodies[path] = Buffer.from(await res.arrayBuffer()).toString('base64');
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
for (const [name, path] of scenarios) {
  const bytes = Buffer.from(bodies[path], 'base64').length;
  const base = await load(plainUrl + path, keys);
  const full = await load(onairUrl + path, keys);
  rows.push({ name, bytes, full, base, ratio: full.rps / base.rps });
  process.stderr.write(`${name}: ${Math.round(full.rps)} req/s vs ${Math.round(base.rps)}\n`);
}
const rss = peakRssMb(onair.pid);
onair.kill('SIGTERM');
plain.kill('SIGTERM');

const table = [
  '| route | body | Onair req/s | p50 / p99 ms | plain node:http req/s | p50 / p99 ms | ratio |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${(r.bytes / 1024).toFixed(1)} KB | ${Math.round(r.full.rps)}${r.full.bad ? ` (${r.full.bad} failed)` : ''} | ${r.full.p50} / ${r.full.p99} | ${Math.round(r.base.rps)} | ${r.base.p50} / ${r.base.p99} | ${(r.ratio * 100).toFixed(0)} % |`,
  ),
];
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
  .toString()
  .trim();
const summary = [
  `Catalogue: ${made.channels} channels, ${made.programmes.toLocaleString('en')} programmes (SQLite); ` +
    `${options.connections} connections, ${options.duration} s per case; Onair peak RSS ${rss} MB.`,
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB; Node ${process.version}; commit ${commit}.`,
];
console.log([...summary, '', ...table].join('\n'));
if (options.write) {
  writeFileSync(join(ROOT, 'bench/http-results.md'), [...summary, '', ...table, ''].join('\n'));
}
process.exit(0);
