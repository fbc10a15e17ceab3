#!/usr/bin/env node
// Soak test: `npm run soak` (builds first), `npm run soak -- --minutes 2` for a short run.
// Starts `bin/onair serve` on a temporary SQLite database, on loopback only, and drives a mixed
// workload for the given time: many accounts at their 3 requests per second, accounts that ask
// for more than their budget, a few raised-limit accounts as fast as they are answered, a
// flood of random keys from many client addresses (one of them over its failed-auth budget),
// and an ingest every minute through `bin/onair ingest`. It then reports: 5xx (must be none),
// whether every 429 is one the budget explains (and every request over budget got one), p50 /
// p99 latency per route, the server's RSS and event-loop delay over time with their trend,
// and the database size. Exits non-zero when a check fails.
//
// Options: --minutes N (10) --accounts N (100) --over-budget N (10) --raised N (3)
//          --flood N (random-key requests per second, 100) --ingest-every S (60)
//          --out FILE (also write the markdown report there) --keep (keep the temp database)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => import(join(ROOT, 'dist', path));

function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
}
const options = {
  minutes: Number(arg('--minutes', 10)),
  accounts: Number(arg('--accounts', 100)),
  overBudget: Number(arg('--over-budget', 10)),
  raised: Number(arg('--raised', 3)),
  flood: Number(arg('--flood', 100)),
  ingestEvery: Number(arg('--ingest-every', 60)),
  out: arg('--out', null),
  keep: process.argv.includes('--keep'),
};
for (const [name, value] of Object.entries(options)) {
  if (typeof value === 'number' && !(value >= 0)) {
    console.error(`soak: --${name} must be a number, got "${value}"`);
    process.exit(2);
  }
}

const RATE_LIMIT = 3;
const AUTH_FAILURE_LIMIT = 100;
const AUTH_FAILURE_WINDOW_MS = 10_000;
const COUNTRIES = ['UK', 'DE', 'FR', 'ES', 'IT', 'US', 'AU', 'IN', 'BR', 'JP'];
const CHANNELS = 200;
const DAY = 86_400_000;
const log = (text) =>
  process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${text}\n`);

// ---------------------------------------------------------------------------------------------
// Set-up: a database with accounts, a guide, a server.

const { openSqliteStore } = await dist('storage/sqlite/sqlite-store.js');
const { issueApiKey } = await dist('accounts/account-service.js');
const { generateApiKey } = await dist('domain/api-key.js');
const { channelIdFor } = await dist('domain/catalogue-ids.js');

const dir = mkdtempSync(join(tmpdir(), 'onair-soak-'));
const dbPath = join(dir, 'onair.db');
const startedAt = Date.now();

/** The guide of one ingest round: the same nine days of 200 channels, titles of this round. */
function writeGuide(round) {
  const path = join(dir, `guide-${round}.xml`);
  const firstDay = Math.floor(startedAt / DAY) * DAY - 2 * DAY;
  const time = (ms) => `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n'];
  for (let c = 0; c < CHANNELS; c++) {
    const country = COUNTRIES[c % COUNTRIES.length].toLowerCase();
    parts.push(
      `<channel id="soak${c}.${country}"><display-name>Soak ${c} Télé</display-name></channel>\n`,
    );
  }
  for (let c = 0; c < CHANNELS; c++) {
    const id = `soak${c}.${COUNTRIES[c % COUNTRIES.length].toLowerCase()}`;
    for (let h = 0; h < 9 * 24; h++) {
      const start = firstDay + h * 3_600_000;
      parts.push(
        `<programme start="${time(start)}" stop="${time(start + 3_600_000)}" channel="${id}"><title>Round ${round} hour ${h}</title><desc>Programme ${h} of channel ${c}, as refreshed by ingest round ${round}.</desc><category>News</category></programme>\n`,
      );
    }
  }
  parts.push('</tv>\n');
  writeFileSync(path, parts.join(''));
  return path;
}

const store = openSqliteStore({ path: dbPath, nowMs: Date.now() });
async function makeAccounts(count, prefix, rateLimit) {
  const keys = [];
  for (let i = 0; i < count; i++) {
    const account = await store.accounts.createAccount(
      { email: `${prefix}${i}@soak.local`, verifiedAt: Date.now(), accessUntil: null, rateLimit },
      Date.now(),
    );
    keys.push((await issueApiKey(store.accounts, account.id, 'soak', Date.now())).key);
  }
  return keys;
}
const pacedKeys = await makeAccounts(options.accounts, 'paced', null);
const overKeys = await makeAccounts(options.overBudget, 'over', null);
const raisedKeys = await makeAccounts(options.raised, 'raised', 1_000_000);
await store.close();

function runCli(args) {
  return new Promise((resolvePromise) => {
    const started = Date.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin/onair'), ...args], {
      env: { ...process.env, DATABASE_URL: dbPath, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolvePromise({ code, stderr, ms: Date.now() - started }));
  });
}

// Every round's guide is written now: writing one takes the client's event loop for a second,
// which would show as latency of the server.
const rounds = Math.floor((options.minutes * 60) / Math.max(1, options.ingestEvery));
const guides = Array.from({ length: rounds + 1 }, (_, round) => writeGuide(round));
log(`wrote ${guides.length} guides`);
const first = await runCli(['ingest', guides[0], '--country', 'ZZ']);
if (first.code !== 0) throw new Error(`the first ingest failed: ${first.stderr}`);

const server = spawn(process.execPath, [join(ROOT, 'bin/onair'), 'serve'], {
  env: {
    ...process.env,
    DATABASE_URL: dbPath,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    TRUST_PROXY: 'true',
    AUTH_FAILURE_LIMIT: String(AUTH_FAILURE_LIMIT),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise((resolvePromise, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /serving (http:\/\/[^\s]+)/.exec(out);
    if (match) resolvePromise(match[1]);
  });
  server.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
});
const { port } = new URL(base);
log(`serving ${base} from ${dbPath}`);

// ---------------------------------------------------------------------------------------------
// The client side.

// At most 128 connections: a burst of hundreds of new connections overflows the listen backlog
// and measures the kernel's SYN retries (1, 3, 7 s), not the server.
const agent = new Agent({ keepAlive: true, maxSockets: 128 });
/** Latencies (ms) and statuses by route label. */
const routes = new Map();
let fivexx = 0;
let networkErrors = 0;
let total = 0;

/** The slowest answer: when it was sent (minutes into the load) and how long it took. */
let slowest = { at: 0, ms: 0, label: '' };

function record(label, status, ms) {
  if (ms > slowest.ms) slowest = { at: (Date.now() - ms - loadStartedAt) / 60_000, ms, label };
  let entry = routes.get(label);
  if (entry === undefined) {
    entry = { latencies: [], statuses: {} };
    routes.set(label, entry);
  }
  entry.latencies.push(ms);
  entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
  total++;
  if (status >= 500 || status === 0) fivexx++;
}

/** One GET; resolves with its status, when it was sent and when the answer had fully arrived. */
function get(path, headers, label, bodyWanted = false) {
  return new Promise((resolvePromise) => {
    const start = Date.now();
    const req = request({ host: '127.0.0.1', port, path, headers, agent, method: 'GET' }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => bodyWanted && chunks.push(chunk));
      res.on('end', () => {
        const end = Date.now();
        record(label, res.statusCode, end - start);
        resolvePromise({
          status: res.statusCode,
          start,
          end,
          body: bodyWanted ? Buffer.concat(chunks).toString() : '',
        });
      });
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', () => {
      networkErrors++;
      const end = Date.now();
      record(label, 0, end - start);
      resolvePromise({ status: 0, start, end, body: '' });
    });
    req.end();
  });
}

const channelIds = Array.from({ length: CHANNELS }, (_, c) =>
  channelIdFor(`soak${c}.${COUNTRIES[c % COUNTRIES.length].toLowerCase()}`),
);
const ROUTES = [
  ['countries', () => '/api/v1/countries'],
  ['channels of a country', (i) => `/api/v1/countries/${COUNTRIES[i % COUNTRIES.length]}/channels`],
  ['search', (i) => `/api/v1/channels/search?q=soak%20${i % 50}`],
  ['programmes, 7 days', (i) => `/api/v1/channels/${channelIds[i % CHANNELS]}/programmes`],
  [
    'programmes, today',
    (i) => `/api/v1/channels/${channelIds[i % CHANNELS]}/programmes?days=today`,
  ],
  [
    'programmes, days=all',
    (i) => `/api/v1/channels/${channelIds[i % CHANNELS]}/programmes?days=all`,
  ],
];
let counter = 0;
function routeRequest(key, extraHeaders = {}) {
  const i = counter++;
  const [label, path] = ROUTES[i % ROUTES.length];
  return get(path(i), { authorization: `Bearer ${key}`, ...extraHeaders }, label);
}

/** Requests whose 429s are judged against the budget: { budget, windowMs, limit, answers[] }. */
const budgets = new Map();
function budgeted(name, windowMs, limit, answer) {
  let entry = budgets.get(name);
  if (entry === undefined) {
    entry = { windowMs, limit, answers: [] };
    budgets.set(name, entry);
  }
  entry.answers.push([answer.start, answer.end, answer.status]);
}

const endAt = Date.now() + options.minutes * 60_000;
const running = () => Date.now() < endAt;
const pending = new Set();
const track = (promise) => {
  pending.add(promise);
  promise.finally(() => pending.delete(promise));
  return promise;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Each 1-second window: every paced account 3 requests inside it, over-budget ones 5. */
let windowsDriven = 0;
async function windows() {
  let previous = 0;
  while (running()) {
    // The next window, never the one just scheduled (a timer may wake exactly on its start).
    const windowStart = Math.max(Math.ceil(Date.now() / 1000) * 1000, previous + 1000);
    previous = windowStart;
    windowsDriven++;
    await sleep(windowStart - Date.now());
    if (!running()) break;
    const window = windowStart / 1000;
    // A timer the busy client fires late must not carry a request into the next window: the
    // account would then really ask for more than its budget there. Such a request is skipped.
    const inTime = () => Math.floor(Date.now() / 1000) === window && Date.now() % 1000 < 850;
    pacedKeys.forEach((key, i) => {
      const offset = 100 + ((i * 37) % 450);
      for (let n = 0; n < RATE_LIMIT; n++) {
        setTimeout(
          () => {
            if (!inTime()) {
              skipped++;
              return;
            }
            track(routeRequest(key).then((a) => budgeted(`paced ${i}`, 1000, RATE_LIMIT, a)));
          },
          offset + n * 60,
        );
      }
    });
    overKeys.forEach((key, i) => {
      setTimeout(
        () => {
          if (!inTime()) {
            skipped++;
            return;
          }
          for (let n = 0; n < RATE_LIMIT + 2; n++) {
            track(routeRequest(key).then((a) => budgeted(`over ${i}`, 1000, RATE_LIMIT, a)));
          }
        },
        300 + i * 20,
      );
    });
  }
}
let skipped = 0;

/** Raised-limit accounts: as fast as they are answered, two requests in flight each. */
async function raisedLoop(key) {
  while (running()) {
    const answer = await routeRequest(key);
    if (answer.status === 429) raised429++;
  }
}
let raised429 = 0;

/** Random keys from 200 addresses (each under its failed-auth budget) and one abusive one. */
const floodIps = Array.from({ length: 200 }, (_, i) => `203.0.113.${i}`);
const ABUSIVE_IP = '198.51.100.66';
let floodUnexpected = 0;
async function flood() {
  let n = 0;
  const interval = 1000 / Math.max(1, options.flood);
  let next = Date.now();
  while (running()) {
    next += interval;
    await sleep(Math.max(0, next - Date.now()));
    const key = n % 2 === 0 ? generateApiKey() : `onair_${Math.random().toString(36).slice(2)}`;
    const ip = floodIps[n % floodIps.length];
    n++;
    track(
      get(
        '/api/v1/countries',
        { authorization: `Bearer ${key}`, 'x-forwarded-for': ip },
        'random keys',
      ).then((a) => {
        if (a.status !== 401) floodUnexpected++;
      }),
    );
  }
}
async function abusive() {
  // 15 a second: 150 per 10-second window, 50 over its budget of 100.
  while (running()) {
    await sleep(1000 / 15);
    track(
      get(
        '/api/v1/countries',
        { authorization: `Bearer ${generateApiKey()}`, 'x-forwarded-for': ABUSIVE_IP },
        'random keys, abusive address',
      ).then((a) => budgeted('abusive address', AUTH_FAILURE_WINDOW_MS, AUTH_FAILURE_LIMIT, a)),
    );
  }
}

/** An ingest every `ingestEvery` seconds through the CLI; checks the server then serves it. */
const ingests = [];
async function ingestLoop() {
  let round = 0;
  while (running()) {
    // Starts `ingestEvery` seconds apart, however long each takes.
    const next = loadStartedAt + (round + 1) * options.ingestEvery * 1000;
    await sleep(Math.max(0, Math.min(next, endAt) - Date.now()));
    if (!running()) break;
    round++;
    const path = guides[round];
    if (path === undefined) break;
    const ingestStarted = (Date.now() - loadStartedAt) / 60_000;
    const result = await runCli(['ingest', path, '--country', 'ZZ']);
    rmSync(path, { force: true });
    let served = false;
    if (result.code === 0) {
      const answer = await get(
        `/api/v1/channels/${channelIds[round % CHANNELS]}/programmes?days=all`,
        { authorization: `Bearer ${raisedKeys[0]}` },
        'after-ingest check',
        true,
      );
      served = answer.body.includes(`Round ${round} hour`);
    }
    ingests.push({
      round,
      code: result.code,
      ms: result.ms,
      served,
      at: ingestStarted,
      error: result.stderr.trim(),
    });
    log(`ingest ${round}: exit ${result.code} in ${result.ms} ms${served ? ', served' : ''}`);
  }
}

/** Every 5 s: the server's own metrics and the database size. */
const samples = [];
function metric(text, name) {
  const match = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}
function databaseBytes() {
  return ['', '-wal'].reduce((sum, suffix) => {
    const path = dbPath + suffix;
    return sum + (existsSync(path) ? statSync(path).size : 0);
  }, 0);
}
async function sampler() {
  while (running()) {
    const answer = await get('/metrics', {}, 'metrics', true);
    samples.push({
      t: (Date.now() - loadStartedAt) / 60_000,
      rssMb: (metric(answer.body, 'onair_process_resident_memory_bytes') ?? 0) / 2 ** 20,
      heapMb: (metric(answer.body, 'onair_nodejs_heap_size_used_bytes') ?? 0) / 2 ** 20,
      lagP99Ms: (metric(answer.body, 'onair_nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000,
      lagMaxMs: (metric(answer.body, 'onair_nodejs_eventloop_lag_max_seconds') ?? 0) * 1000,
      dbMb: databaseBytes() / 2 ** 20,
    });
    const last = samples.at(-1);
    if (samples.length % 12 === 0) {
      log(
        `${total} requests; RSS ${last.rssMb.toFixed(0)} MB, loop p99 ${last.lagP99Ms.toFixed(1)} ms, db ${last.dbMb.toFixed(1)} MB`,
      );
    }
    await sleep(5_000);
  }
}

log(
  `driving ${options.accounts} paced + ${options.overBudget} over-budget + ${options.raised} raised accounts, ` +
    `${options.flood} random keys/s, an ingest every ${options.ingestEvery} s, for ${options.minutes} min`,
);
const loadStartedAt = Date.now();
await Promise.all([
  windows(),
  ...raisedKeys.flatMap((key) => [raisedLoop(key), raisedLoop(key)]),
  flood(),
  abusive(),
  ingestLoop(),
  sampler(),
]);
await Promise.all([...pending]);
const loadMs = Date.now() - loadStartedAt;

const stopAsked = Date.now();
const exitCode = await new Promise((resolvePromise) => {
  server.removeAllListeners('exit');
  server.on('exit', (code) => resolvePromise(code));
  server.kill('SIGTERM');
});
const shutdownMs = Date.now() - stopAsked;
agent.destroy();

// ---------------------------------------------------------------------------------------------
// Judgement.

/**
 * A 429 is explained when some window its request may have been counted in (the server counts
 * it at a moment between send and answer) could hold more than `limit` requests of the same
 * budget. A request over budget is missed when its window surely held more than `limit` (every
 * request of it sent and answered inside the window) and fewer than that number were refused.
 */
function judge({ windowMs, limit, answers }) {
  const windowOf = (ms) => Math.floor(ms / windowMs);
  const possible = new Map();
  const sure = new Map();
  for (const [start, end] of answers) {
    for (let w = windowOf(start); w <= windowOf(end); w++)
      possible.set(w, (possible.get(w) ?? 0) + 1);
  }
  let unexplained = 0;
  let limited = 0;
  for (const [start, end, status] of answers) {
    if (status === 429) {
      limited++;
      let explained = false;
      for (let w = windowOf(start); w <= windowOf(end); w++) {
        if ((possible.get(w) ?? 0) > limit) explained = true;
      }
      if (!explained) unexplained++;
    }
    if (windowOf(start) === windowOf(end)) {
      const w = windowOf(start);
      const entry = sure.get(w) ?? { inside: 0, refused: 0, straddling: 0 };
      entry.inside++;
      if (status === 429) entry.refused++;
      sure.set(w, entry);
    }
  }
  let missed = 0;
  for (const [w, entry] of sure) {
    const straddling = (possible.get(w) ?? 0) - entry.inside;
    if (straddling === 0 && entry.inside > limit && entry.refused < entry.inside - limit) missed++;
  }
  return { requests: answers.length, limited, unexplained, missed };
}

const judged = {
  paced: { requests: 0, limited: 0, unexplained: 0, missed: 0 },
  over: { requests: 0, limited: 0, unexplained: 0, missed: 0 },
};
let abusiveJudged = null;
for (const [name, entry] of budgets) {
  const result = judge(entry);
  if (name === 'abusive address') abusiveJudged = result;
  else {
    const into = judged[name.split(' ')[0]];
    for (const field of Object.keys(into)) into[field] += result[field];
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Least-squares slope of `field` per minute over the samples after the first minute. */
function trend(field) {
  const points = samples.filter((s) => s.t >= Math.min(1, options.minutes / 4));
  const n = points.length;
  if (n < 3) return { slope: 0, first: 0, last: 0, mean: 0 };
  const mx = points.reduce((a, s) => a + s.t, 0) / n;
  const my = points.reduce((a, s) => a + s[field], 0) / n;
  const slope =
    points.reduce((a, s) => a + (s.t - mx) * (s[field] - my), 0) /
    points.reduce((a, s) => a + (s.t - mx) ** 2, 0);
  const third = Math.max(1, Math.floor(n / 3));
  const avg = (list) => list.reduce((a, s) => a + s[field], 0) / list.length;
  return {
    slope,
    mean: my,
    middle: avg(points.slice(third, 2 * third)),
    lastThird: avg(points.slice(-third)),
  };
}

const rss = trend('rssMb');
const heap = trend('heapMb');
const lag = trend('lagP99Ms');
// Flat: the last third within 10 % (RSS, heap) of the middle third, or the fitted growth over
// the whole run under 10 % of the mean; for the loop delay, within 5 ms or 50 %.
const flatMemory = (t) => t.lastThird <= t.middle * 1.1 || t.slope * options.minutes < t.mean * 0.1;
const flatLag = lag.lastThird <= Math.max(lag.middle * 1.5, lag.middle + 5);
// Bounded: never more than half again the size it had after the first ingest of the run (the
// catalogue and a WAL of one merge); later ingests replace the same nine days.
const firstIngestEnd = ingests[0] === undefined ? null : ingests[0].at + ingests[0].ms / 60_000;
const afterFirst = samples.filter(
  (s) => firstIngestEnd !== null && s.t > firstIngestEnd && s.t < (ingests[1]?.at ?? Infinity),
);
const dbReference =
  afterFirst.length > 0 ? Math.max(...afterFirst.map((s) => s.dbMb)) : (samples[0]?.dbMb ?? 0);
const dbMax = Math.max(...samples.map((s) => s.dbMb));
const dbLast = samples.at(-1)?.dbMb ?? 0;
const dbBounded = dbMax <= Math.max(dbReference * 1.5, dbReference + 20);
const ingestsOk = ingests.length > 0 && ingests.every((i) => i.code === 0 && i.served);
const abusiveOk =
  abusiveJudged !== null &&
  abusiveJudged.unexplained === 0 &&
  abusiveJudged.missed === 0 &&
  abusiveJudged.limited > 0;

const mark = (ok) => (ok ? '✓' : '✗ FAILED');
const checks = [
  [
    '5xx answers or failed requests',
    `${fivexx} of ${total.toLocaleString('en')} (${networkErrors} network errors)`,
    fivexx === 0,
  ],
  [
    `429s to ${options.accounts} accounts at 3 req/s`,
    `${(judged.paced.requests / Math.max(1, windowsDriven * options.accounts)).toFixed(2)} sent per account per window over ${windowsDriven} windows; ${judged.paced.limited.toLocaleString('en')} of ${judged.paced.requests.toLocaleString('en')} refused, ${judged.paced.unexplained} not explained by the budget (${skipped.toLocaleString('en')} sends skipped: the client's timer fired too late in its window)`,
    judged.paced.unexplained === 0,
  ],
  [
    `${options.overBudget} accounts asking 5 per second`,
    `${judged.over.limited.toLocaleString('en')} of ${judged.over.requests.toLocaleString('en')} refused; ${judged.over.unexplained} not explained, ${judged.over.missed} windows not limited`,
    judged.over.unexplained === 0 && judged.over.missed === 0 && judged.over.limited > 0,
  ],
  [
    `${options.raised} raised-limit accounts at full speed`,
    `${raised429} answered 429`,
    raised429 === 0,
  ],
  [
    'random keys from 200 addresses',
    `${(routes.get('random keys')?.latencies.length ?? 0).toLocaleString('en')} sent, ${floodUnexpected} not answered 401`,
    floodUnexpected === 0,
  ],
  [
    'random keys from one address, 150 per 10 s',
    abusiveJudged === null
      ? 'none sent'
      : `${abusiveJudged.limited} of ${abusiveJudged.requests} refused 429; ${abusiveJudged.unexplained} not explained, ${abusiveJudged.missed} windows not limited`,
    abusiveOk,
  ],
  [
    `ingest every ${options.ingestEvery} s (CLI, 43,200 programmes)`,
    `${ingests.filter((i) => i.code === 0).length} of ${ingests.length} succeeded, ${ingests.filter((i) => i.served).length} served at once; ${Math.min(...ingests.map((i) => i.ms))}–${Math.max(...ingests.map((i) => i.ms))} ms`,
    ingestsOk,
  ],
  [
    'server RSS (MB)',
    `${samples[0]?.rssMb.toFixed(0)} → ${samples.at(-1)?.rssMb.toFixed(0)}, max ${Math.max(...samples.map((s) => s.rssMb)).toFixed(0)}; trend ${rss.slope >= 0 ? '+' : ''}${rss.slope.toFixed(2)} MB/min; middle third ${rss.middle.toFixed(0)}, last third ${rss.lastThird.toFixed(0)}`,
    flatMemory(rss),
  ],
  [
    'server heap used (MB)',
    `${samples[0]?.heapMb.toFixed(0)} → ${samples.at(-1)?.heapMb.toFixed(0)}; trend ${heap.slope >= 0 ? '+' : ''}${heap.slope.toFixed(2)} MB/min; middle third ${heap.middle.toFixed(0)}, last third ${heap.lastThird.toFixed(0)}`,
    flatMemory(heap),
  ],
  [
    'event-loop delay p99 per 5 s (ms)',
    `median ${percentile(
      samples.map((s) => s.lagP99Ms).sort((a, b) => a - b),
      50,
    ).toFixed(
      1,
    )}, max ${Math.max(...samples.map((s) => s.lagP99Ms)).toFixed(1)}, longest single delay ${Math.max(...samples.map((s) => s.lagMaxMs)).toFixed(0)}; trend ${lag.slope >= 0 ? '+' : ''}${lag.slope.toFixed(2)} ms/min; middle third ${lag.middle.toFixed(1)}, last third ${lag.lastThird.toFixed(1)}`,
    flatLag,
  ],
  [
    'database file + WAL (MB)',
    `${samples[0]?.dbMb.toFixed(1)} at start, ${dbReference.toFixed(1)} after the 1st ingest of the run, max ${dbMax.toFixed(1)}, end ${dbLast.toFixed(1)}`,
    dbBounded,
  ],
  ['SIGTERM after the run', `exit ${exitCode} in ${shutdownMs} ms`, exitCode === 0],
];

const routeRows = [...routes.entries()]
  .filter(([label]) => label !== 'metrics' && label !== 'after-ingest check')
  .map(([label, entry]) => {
    const sorted = entry.latencies.sort((a, b) => a - b);
    const statuses = Object.entries(entry.statuses)
      .map(([status, count]) => `${status}: ${count.toLocaleString('en')}`)
      .join(', ');
    return `| ${label} | ${sorted.length.toLocaleString('en')} | ${statuses} | ${percentile(sorted, 50)} | ${percentile(sorted, 99)} | ${sorted.at(-1)} |`;
  });

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
  .toString()
  .trim();
const report = [
  `### ${options.minutes}-minute run, ${new Date(startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC (commit ${commit})`,
  '',
  `${(total / (loadMs / 1000)).toFixed(0)} requests/s on average, ${total.toLocaleString('en')} in all, over ${(loadMs / 60_000).toFixed(1)} min. ` +
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}; ` +
    'the load generator runs on the same cores as the server.',
  '',
  '| check | result | |',
  '| --- | --- | --- |',
  ...checks.map(([name, result, ok]) => `| ${name} | ${result} | ${mark(ok)} |`),
  '',
  '| route | requests | statuses | p50 ms | p99 ms | max ms |',
  '| --- | ---: | --- | ---: | ---: | ---: |',
  ...routeRows,
  '',
  `Slowest answer: ${slowest.ms} ms (${slowest.label}, sent at minute ${slowest.at.toFixed(2)}); ingests ran at minutes ${ingests.map((i) => `${i.at.toFixed(1)}–${(i.at + i.ms / 60_000).toFixed(1)}`).join(', ')}.`,
  '',
  `Samples every 5 s (minute: RSS MB / heap MB / loop p99 ms / db MB): ${samples
    .filter((_, i) => i % 6 === 0)
    .map(
      (s) =>
        `${s.t.toFixed(1)}: ${s.rssMb.toFixed(0)}/${s.heapMb.toFixed(0)}/${s.lagP99Ms.toFixed(1)}/${s.dbMb.toFixed(1)}`,
    )
    .join('; ')}`,
  '',
].join('\n');

console.log(report);
if (options.out !== null) writeFileSync(resolve(options.out), report);
if (!options.keep) rmSync(dir, { recursive: true, force: true });
const failed = checks.filter(([, , ok]) => !ok).map(([name]) => name);
if (failed.length > 0) {
  console.error(`soak: failed checks: ${failed.join('; ')}`);
  process.exit(1);
}
process.exit(0);
