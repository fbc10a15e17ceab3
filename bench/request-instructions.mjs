#!/usr/bin/env node
// Instructions a request costs the server, counted by callgrind (Debian's `valgrind`), for
// guests too noisy for CPU time: there the same build measured 46 to 112 µs a request from one
// five-second run to the next. Starts `bin/onair serve` under callgrind on the HTTP bench's
// catalogue (`node bench/http.mjs` makes it), sends `--warmup` requests, zeroes the counts,
// sends `--requests` more (32 connections, the bench's 50 keys in turn), dumps, and prints
// the instructions per request of the server's main thread (the one that answers) and of all
// its threads (V8's compiler and garbage collector included, which vary more from run to run).
// The kernel's share (the socket writes) is not counted. With `--base DIR` (the root of another
// checkout, built), the two builds run in turn, `--pairs` times.
//
// Usage: node bench/request-instructions.mjs [--path /api/v1/countries] [--requests 3000]
//          [--warmup 3000] [--base DIR] [--pairs 2]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { arg, freePort, openBenchStore } from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CATALOGUE = join(ROOT, 'bench/out/catalogue-v2-2000x30x30.db');
const options = {
  path: String(arg('--path', '/api/v1/countries')),
  requests: Number(arg('--requests', 3000)),
  warmup: Number(arg('--warmup', 3000)),
  base: arg('--base', null),
  pairs: Number(arg('--pairs', 2)),
};

if (!existsSync(CATALOGUE)) {
  console.error(`no bench catalogue at ${CATALOGUE}: run "node bench/http.mjs --routes countries"`);
  process.exit(1);
}
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed: apt-get install valgrind');
  process.exit(1);
}

async function benchKeys() {
  const { issueApiKey } = await import(join(ROOT, 'dist/accounts/account-service.js'));
  const nowMs = Date.now();
  const { store } = await openBenchStore('sqlite', { sqlitePath: CATALOGUE, nowMs });
  try {
    const account = await store.accounts.createAccount(
      {
        email: `instructions-${nowMs}@onair.local`,
        verifiedAt: nowMs,
        accessUntil: null,
        rateLimit: 10_000_000,
      },
      nowMs,
    );
    const keys = [];
    for (let i = 0; i < 50; i++) {
      keys.push((await issueApiKey(store.accounts, account.id, `instructions ${i}`, nowMs)).key);
    }
    return keys;
  } finally {
    await store.close();
  }
}

/** Sends `count` GETs of `url` over 32 kept-alive connections; resolves with the non-200s. */
function send(url, count, keys) {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  let sent = 0;
  let done = 0;
  let failed = 0;
  return new Promise((resolveAll, reject) => {
    const next = () => {
      if (sent >= count) return;
      const key = keys[sent % keys.length];
      sent += 1;
      request(url, { agent, headers: { 'x-api-key': key } }, (res) => {
        if (res.statusCode !== 200) failed += 1;
        res.resume();
        res.on('end', () => {
          done += 1;
          if (done === count) {
            agent.destroy();
            resolveAll(failed);
          } else next();
        });
      })
        .on('error', reject)
        .end();
    };
    for (let i = 0; i < 32; i++) next();
  });
}

async function untilServing(url) {
  for (let i = 0; i < 600; i++) {
    const up = await new Promise((done) =>
      request(`${url}/healthz`, (res) => done(res.resume() && res.statusCode === 200))
        .on('error', () => done(false))
        .end(),
    );
    if (up) return;
    await sleep(500);
  }
  throw new Error('the server did not start under callgrind');
}

/** Instructions (inclusive) of the first line of callgrind_annotate's output matching `pattern`. */
function inclusive(annotated, pattern) {
  const line = annotated.split('\n').find((l) => pattern.test(l));
  return line === undefined ? NaN : Number(line.trim().split(/\s+/)[0].replaceAll(',', ''));
}

async function measure(root, keys) {
  const dir = mkdtempSync(join(tmpdir(), 'onair-callgrind-'));
  const out = join(dir, 'callgrind.out');
  const port = await freePort();
  const server = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      process.execPath,
      join(root, 'bin/onair'),
      'serve',
    ],
    { env: { ...process.env, DATABASE_URL: CATALOGUE, PORT: String(port) }, stdio: 'ignore' },
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    await untilServing(url);
    await send(url + options.path, options.warmup, keys);
    execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
    const failed = await send(url + options.path, options.requests, keys);
    if (failed > 0) throw new Error(`${failed} requests were not answered 200`);
    execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
    const dump = `${out}.1`;
    const annotated = execFileSync('callgrind_annotate', ['--threshold=100', dump], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const total = Number(/^summary: (\d+)/m.exec(readFileSync(dump, 'utf8'))?.[1]);
    return {
      main: inclusive(annotated, /node::Start\(int/) / options.requests,
      all: total / options.requests,
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
  }
}

const keys = await benchKeys();
const builds = options.base === null ? [ROOT] : [resolve(options.base), ROOT];
console.log(
  `${options.path}: instructions per request after ${options.warmup} unmeasured, over ${options.requests} (thousands: main thread / all threads)`,
);
for (let pair = 0; pair < (options.base === null ? 1 : options.pairs); pair++) {
  for (const root of builds) {
    const { main, all } = await measure(root, keys);
    console.log(`${root}: ${(main / 1000).toFixed(1)}k / ${(all / 1000).toFixed(1)}k`);
  }
}
