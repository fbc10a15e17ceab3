#!/usr/bin/env node
// Programme search in process: `npm run build && node bench/search-store.mjs`, after
// `node bench/search.mjs` has generated its catalogue (bench/out/ for SQLite, the database
// onair_bench_search_2000x30x30 for PostgreSQL). Times the store's own `searchProgrammes`, with no HTTP
// around it, for the cases of bench/search.mjs:
//
// - a rare title (one programme has the word; a different word per query);
// - "news" (a word of every third start time) and "news curr" (the last word a prefix), with
//   `from` spread over a day (each query 7 minutes after the last), so walks begin at start
//   times with and without the word, as a day's queries would.
//
// Each case runs --queries N times (200) after as many unmeasured; prints p50, p90 and the
// slowest, in ms. ONAIR_BENCH_DIST measures another build (e.g. an earlier commit's, over a
// copy of the catalogue made for it: BENCH_SQLITE_PATH, BENCH_POSTGRES_URL), for A/B runs.
// Options: --engines sqlite,postgres (both) --queries N (200)
import { join, dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { arg } from './bench-support.mjs';
import { rareWordsAhead } from './catalogue-generator.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ONAIR_BENCH_DIST ?? join(ROOT, 'dist');
const DAY = 86_400_000;
// The catalogue of bench/search.mjs with its default options.
const CATALOGUE = { channels: 2000, days: 30, perDay: 30, futureDays: 15 };
const SQLITE_PATH =
  process.env.BENCH_SQLITE_PATH ?? join(ROOT, 'bench/out/search-v1-2000x30x30.db');
const POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ??
  'postgres://postgres@127.0.0.1:5432/onair_bench_search_2000x30x30';
const engines = String(arg('--engines', 'sqlite,postgres')).split(',');
const queries = Number(arg('--queries', 200));

async function open(engine, nowMs) {
  if (engine === 'sqlite') {
    const { openSqliteStore } = await import(join(DIST, 'storage/sqlite/sqlite-store.js'));
    return openSqliteStore({ path: SQLITE_PATH, nowMs });
  }
  const { openPostgresStore } = await import(join(DIST, 'storage/postgres/postgres-store.js'));
  return openPostgresStore({ url: POSTGRES_URL, nowMs });
}

const nowMs = Date.now();
const rare = rareWordsAhead({ ...CATALOGUE, nowMs });
const cases = {
  'rare title': (i) => ({ terms: { words: [], prefix: rare[(i * 7919) % rare.length] }, at: i }),
  news: (i) => ({ terms: { words: [], prefix: 'news' }, at: i * 420_000 }),
  'news curr': (i) => ({ terms: { words: ['news'], prefix: 'curr' }, at: i * 420_000 }),
};

for (const engine of engines) {
  const store = await open(engine, nowMs);
  try {
    for (const [name, query] of Object.entries(cases)) {
      const times = [];
      for (let i = 0; i < 2 * queries; i++) {
        // The unmeasured half first, on other queries (other words, other times of day).
        const { terms, at } = query(i < queries ? i + queries : i - queries);
        const started = performance.now();
        await store.catalogue.searchProgrammes({
          terms,
          country: null,
          channels: null,
          fromMs: nowMs + at,
          toMs: nowMs + 14 * DAY,
          after: null,
          limit: 50,
        });
        if (i >= queries) times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
      console.log(
        `${engine} ${name}: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, slowest ${at(1)} ms (${queries} queries)`,
      );
    }
  } finally {
    await store.close();
  }
}
