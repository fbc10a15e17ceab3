#!/usr/bin/env node
// Programme search over real guides: `npm run build && node bench/search-density.mjs [--runs N]`
// [--engines sqlite,postgres] (ONAIR_BENCH_DIST=/path/to/dist measures another build, for a
// before and after; PostgreSQL on BENCH_POSTGRES_URL's server, default the local one).
//
// bench/search.mjs measures the generated bench catalogue (1.8 or 10 million programmes) whose
// "news" is in a third of them; a single country's guide is small, and its most common words
// and short prefixes are in most of its programmes. This ingests guides of the test corpus, each
// into a SQLite catalogue of its own in a temporary directory, and times, in process (the search
// thread's work, without HTTP), searches for such words and prefixes and for rarer ones, each
// from 100 instants spread over the guide's days (every search a different one, so none is
// answered by a cache), a page of 51 as the route asks. Prints each query's matches (of any
// time), and the mean and slowest search in ms, the fastest of N runs (default 3).
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { arg, corpusCatalogue } from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ONAIR_BENCH_DIST ?? join(ROOT, 'dist');
const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { searchTermsOf } = await load('domain/programme-search.js');

const runs = Number(arg('--runs', 3));
const engines = String(arg('--engines', 'sqlite')).split(',');
const GUIDES = [
  ['mjh_plex_fr.xml.gz', 'FR', ['de', 'la', 'le', 'film', 'journal', 'de la']],
  ['michaz1988_de_guide.xml.gz', 'DE', ['die', 'der', 'und', 'film', 'nachrichten']],
  ['mjh_au_sydney_epg.xml.gz', 'AU', ['the', 'news', 'of', 'and', 'home']],
];
const INSTANTS = 100;

console.log(
  `Programme search over corpus guides (${engines.join(', ')}; in process): ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${DIST}; fastest of ${runs} runs\n`,
);
console.log('| engine | guide | programmes | q | matches | mean ms | slowest ms |');
console.log('| --- | --- | --: | --- | --: | --: | --: |');
for (const engine of engines) {
  for (const [file, country, queries] of GUIDES) {
    const { store, programmes, close } = await corpusCatalogue(DIST, file, country, engine);
    try {
      const starts = programmes.map((p) => p.startMs);
      const first = Math.min(...starts);
      const last = Math.max(...starts);
      for (const q of queries) {
        const terms = searchTermsOf(q);
        const search = (fromMs, toMs = fromMs + 14 * 86_400_000, limit = 51) =>
          store.catalogue.searchProgrammes({
            terms,
            country: null,
            channels: null,
            fromMs,
            toMs,
            after: null,
            limit,
          });
        const matches = (await search(0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)).length;
        let best = null;
        for (let run = 0; run < runs; run++) {
          const times = [];
          for (let i = 0; i < INSTANTS; i++) {
            // A second later each run: no search repeats.
            const fromMs = first + Math.floor(((last - first) * i) / INSTANTS) + run * 1000;
            const started = performance.now();
            await search(fromMs);
            times.push(performance.now() - started);
          }
          const mean = times.reduce((a, b) => a + b, 0) / times.length;
          if (best === null || mean < best.mean) best = { mean, slowest: Math.max(...times) };
        }
        console.log(
          `| ${engine} | ${file} | ${starts.length} | ${q} | ${matches} | ${best.mean.toFixed(2)} | ${best.slowest.toFixed(2)} |`,
        );
      }
    } finally {
      await close();
    }
  }
}
