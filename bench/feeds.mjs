#!/usr/bin/env node
// Guide feed benchmark: `node bench/feeds.mjs` (builds first). On the bench catalogue
// (bench/catalogue-generator.mjs: 2,000 channels × 30 days × 30 programmes, every programme with
// rich details), an account with feeds of 200 channels × 7 days ahead, 1 day back (the defaults),
// served by `bin/onair serve` (SQLite, default settings but FEED_FETCH_LIMIT raised so the
// budget does not stop the load), measures:
//   - cold generation: the first fetch of each of 5 feeds (different 200-channel lineups, so
//     nothing is kept yet), one at a time, timed from request to last byte; plain XML asked
//     (the gzip kept for later fetches is made alongside), and gzip asked;
//   - from cache: the same feed fetched again and again by autocannon, gzip (what media servers
//     ask) and plain, against a plain node:http server sending the same bytes from memory in
//     the same run, in turn, `--rounds` times, the median ratio reported.
// Options: --duration S (5) --connections N (8) --rounds N (3). Prints the results; they go in
// bench/RESULTS.md by hand.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { cpus, totalmem, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { arg, cpuMs, freePort, rawGet, rssMb, startProcess } from './bench-support.mjs';
import { generateCatalogue } from './catalogue-generator.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench/out');
const DAY = 86_400_000;
const SHAPE = { channels: 2000, days: 30, perDay: 30 };
const LINEUP = 200;
const COLD_FEEDS = 5;

const options = {
  duration: Number(arg('--duration', 5)),
  connections: Number(arg('--connections', 8)),
  rounds: Number(arg('--rounds', 3)),
};
const dist = (path) => import(join(ROOT, 'dist', path));

const nowMs = Date.now();
execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
const { openSqliteStore } = await dist('storage/sqlite/sqlite-store.js');
const { createAuditedFeed } = await dist('accounts/feed-service.js');
const { channelIdFor } = await dist('domain/catalogue-ids.js');

// The catalogue of today, generated when missing or from another day.
mkdirSync(OUT, { recursive: true });
const path = join(OUT, `feeds-${SHAPE.channels}x${SHAPE.days}x${SHAPE.perDay}.db`);
const metaPath = `${path}.json`;
const today = Math.floor(nowMs / DAY);
let meta = existsSync(metaPath) ? JSON.parse(readFileSync(metaPath, 'utf8')) : null;
if (meta?.day !== today) {
  for (const file of [path, path.replace(/\.db$/, '.catalogue.db')]) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  }
  const store = openSqliteStore({ path, nowMs });
  const started = Date.now();
  const made = await generateCatalogue(
    {
      ids: await dist('domain/catalogue-ids.js'),
      time: await dist('domain/xmltv-time.js'),
      details: await dist('domain/programme-details.js'),
    },
    store,
    { ...SHAPE, futureDays: 7, nowMs },
  );
  await store.close();
  meta = { day: today, ...made, generatedInMs: Date.now() - started };
  writeFileSync(metaPath, JSON.stringify(meta));
}

// An account with one feed per 200-channel slice of the regular countries' channels.
const store = openSqliteStore({ path, nowMs });
const account = await store.accounts.createAccount(
  {
    email: `feeds-bench-${nowMs}@onair.local`,
    verifiedAt: nowMs,
    accessUntil: null,
    rateLimit: null,
  },
  nowMs,
);
const tokens = [];
for (let f = 0; f < COLD_FEEDS; f++) {
  const channelIds = Array.from({ length: LINEUP }, (_, i) =>
    channelIdFor(
      `bench${f * LINEUP + i}.${['uk', 'de', 'fr', 'es', 'it', 'us', 'au', 'in', 'br', 'jp'][(f * LINEUP + i) % 10]}`,
    ),
  );
  const issued = await createAuditedFeed(
    store,
    account.id,
    { name: `bench ${f}`, lineup: { kind: 'channels', channelIds }, daysAhead: 7, daysBack: 1 },
    'operator',
    nowMs,
  );
  tokens.push(issued.token);
}
// The largest feed there is: 1,000 channels, 7 days back, 14 ahead (the catalogue holds 7).
const big = await createAuditedFeed(
  store,
  account.id,
  {
    name: 'bench largest',
    lineup: {
      kind: 'channels',
      channelIds: Array.from({ length: 1000 }, (_, c) =>
        channelIdFor(
          `bench${c}.${['uk', 'de', 'fr', 'es', 'it', 'us', 'au', 'in', 'br', 'jp'][c % 10]}`,
        ),
      ),
    },
    daysAhead: 14,
    daysBack: 7,
  },
  'operator',
  nowMs,
);
await store.close();

const port = await freePort();
// As shipped (request log at info), the feed budget raised so the load is not refused.
const server = await startProcess(
  process.execPath,
  [join(ROOT, 'bin/onair'), 'serve'],
  { DATABASE_URL: path, PORT: String(port), SOURCE_REFRESH: 'off', FEED_FETCH_LIMIT: '1000000000' },
  /serving/,
);
const base = `http://127.0.0.1:${port}`;
const feedPath = (token) => `/feeds/${token}/guide.xml`;

// Cold: plain XML asked of feeds 0–2 (each first fetch), gzip of feeds 3–4.
const cold = [];
for (let f = 0; f < COLD_FEEDS; f++) {
  const encoding = f < 3 ? 'identity' : 'gzip';
  const res = await rawGet(base + feedPath(tokens[f]), { 'accept-encoding': encoding });
  if (res.status !== 200) throw new Error(`cold fetch answered ${res.status}`);
  cold.push({ encoding, ms: res.ms, bytes: res.body.length });
}
// Memory of the largest feed, fetched cold: the peak while it streams against before.
const rssBefore = rssMb(server.pid, 'VmRSS');
const peakBefore = rssMb(server.pid);
const largest = await rawGet(base + feedPath(big.token), { 'accept-encoding': 'identity' });
const largestProgrammes = (largest.body.toString('utf8').match(/<programme /g) ?? []).length;
const peakAfter = rssMb(server.pid);
const largestBytes = largest.body.length;

const warm = await rawGet(base + feedPath(tokens[0]), { 'accept-encoding': 'gzip' });
const plainText = await rawGet(base + feedPath(tokens[0]), { 'accept-encoding': 'identity' });
const programmes = (plainText.body.toString('utf8').match(/<programme /g) ?? []).length;

// The plain server: the same bytes, from memory.
const plainPort = await freePort();
const plainServer = createHttpServer((req, res) => {
  const gzip = req.url === '/gzip';
  const body = gzip ? warm.body : plainText.body;
  res.writeHead(200, {
    'content-type': 'application/xml; charset=utf-8',
    'content-length': body.length,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  res.end(body);
});
await new Promise((r) => plainServer.listen(plainPort, '127.0.0.1', r));
const plainBase = `http://127.0.0.1:${plainPort}`;

async function load(url, headers, pid) {
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    headers,
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mbps: result.throughput.average / 2 ** 20,
    cpuUs:
      pid === undefined
        ? null
        : ((cpuMs(pid) - cpuBefore) * 1000) / Math.max(1, result.requests.total),
    bad,
  };
}

const rows = [];
for (const [name, encoding, plainPath, bytes] of [
  ['from cache, gzip asked', 'gzip', '/gzip', warm.body.length],
  ['from cache, plain asked', 'identity', '/plain', plainText.body.length],
]) {
  const headers = { 'accept-encoding': encoding };
  const rounds = [];
  for (let round = 0; round < options.rounds; round++) {
    const plain = await load(plainBase + plainPath, headers);
    const full = await load(base + feedPath(tokens[0]), headers, server.pid);
    rounds.push({ plain, full, ratio: full.rps / plain.rps });
  }
  rounds.sort((a, b) => a.ratio - b.ratio);
  rows.push({ name, bytes, ...rounds[Math.floor((rounds.length - 1) / 2)] });
}
const rss = rssMb(server.pid);
server.kill('SIGTERM');
plainServer.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const coldPlain = cold.filter((c) => c.encoding === 'identity').map((c) => c.ms);
const coldGzip = cold.filter((c) => c.encoding === 'gzip').map((c) => c.ms);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
  .toString()
  .trim();
const mb = (n) => `${(n / 2 ** 20).toFixed(1)} MB`;
console.log(
  [
    `Catalogue: ${meta.channels} channels, ${meta.programmes.toLocaleString('en')} programmes (SQLite); feed: ${LINEUP} channels, 1 day back, 7 ahead: ${programmes.toLocaleString('en')} programmes, ${mb(plainText.body.length)} XML, ${mb(warm.body.length)} gzip.`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB; Node ${process.version}; commit ${commit}; load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ${options.connections} connections, ${options.duration} s per case, median of ${options.rounds} rounds; Onair peak RSS ${rss} MB.`,
    `Largest feed (1,000 channels, 7 days back, 14 ahead), cold, plain XML: ${largestProgrammes.toLocaleString('en')} programmes, ${mb(largestBytes)} in ${largest.ms.toFixed(0)} ms; server RSS ${rssBefore} MB before, peak ${peakBefore} MB before and ${peakAfter} MB after.`,
    '',
    `Cold generation (first fetch of a lineup, request to last byte): plain XML ${coldPlain.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${median(coldPlain).toFixed(0)}); gzip ${coldGzip.map((ms) => ms.toFixed(0)).join(', ')} ms.`,
    '',
    '| case | body | Onair req/s | p50 / p99 ms | plain node:http req/s | p50 / p99 ms | ratio | Onair CPU µs/request |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${mb(r.bytes)} | ${r.full.rps.toFixed(1)}${r.full.bad ? ` (${r.full.bad} failed)` : ''} | ${r.full.p50} / ${r.full.p99} | ${r.plain.rps.toFixed(1)} | ${r.plain.p50} / ${r.plain.p99} | ${(r.ratio * 100).toFixed(0)} % | ${r.full.cpuUs?.toFixed(0)} |`,
    ),
  ].join('\n'),
);
process.exit(0);
