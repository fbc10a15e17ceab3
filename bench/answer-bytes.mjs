#!/usr/bin/env node
// An answer's body from its entries: `npm run build && node bench/answer-bytes.mjs [--rounds N]`.
//
// Search pages and guide grids are written from entries kept as JSON text (one a programme).
// This ingests guides of the test corpus (each into a catalogue of its own, in a temporary
// directory), makes every programme's rich entry as the answers do, cuts them in start order
// into pages of 51 entries with their channel (a search page of 50 and the one after it), and
// times making each page's bytes two ways, in one process, alternating:
//
// - joined: the entries joined into one string, then encoded (`Buffer.from`), as before
//   `utf8Bytes`;
// - piece by piece: `utf8Bytes` (src/http/answers/utf8-bytes.ts), as the answers do now.
//
// Both must give the same bytes (checked). Prints, per guide, the share of its pages with a
// character beyond Latin-1 (which makes a joined string two bytes a character), and the median
// over N rounds (default 15) of the mean µs a page each way.
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { arg, corpusCatalogue } from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ONAIR_BENCH_DIST ?? join(ROOT, 'dist');
const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { richProgrammeOf } = await load('domain/programme.js');
const { utf8Bytes } = await load('http/answers/utf8-bytes.js');

const rounds = Number(arg('--rounds', 15));
const GUIDES = [
  ['freeview_ie_epg.xml', 'IE'],
  ['mjh_au_sydney_epg.xml.gz', 'AU'],
  ['mjh_pbs_us_all.xml.gz', 'US'],
  ['michaz1988_de_guide.xml.gz', 'DE'],
  ['mjh_plex_fr.xml.gz', 'FR'],
];
const PAGE = 51;
/** A character a one-byte string cannot hold. */
const BEYOND_LATIN1 = /[^\x20-\xff\t\n\r]/;

/** The pages of a guide: each a list of [channel JSON, entry JSON]. */
async function pagesOf(file, country) {
  const { channels, programmes, close } = await corpusCatalogue(DIST, file, country);
  try {
    const byId = new Map(channels.map((c) => [c.id, c]));
    const rows = programmes
      .sort((a, b) => a.startMs - b.startMs)
      .map((p) => {
        const c = byId.get(p.channelId);
        const channel = JSON.stringify({
          channelId: c.id,
          name: c.name,
          icon: c.icon,
          country: c.country,
          needsReview: c.needsReview,
        });
        return [channel, JSON.stringify(richProgrammeOf(p.channelId, p.programme, p.details))];
      });
    const pages = [];
    for (let i = 0; i + PAGE <= rows.length; i += PAGE) pages.push(rows.slice(i, i + PAGE));
    return pages;
  } finally {
    await close();
  }
}

const joined = (page) => {
  const results = page.map(([c, e]) => `{"channel":${c},"programme":${e}}`);
  return Buffer.from(`{"results":[${results.join(',')}],"next":null}`);
};
const pieceByPiece = (page) => {
  const pieces = ['{"results":['];
  page.forEach(([c, e], i) =>
    pieces.push(`${i === 0 ? '' : ','}{"channel":${c},"programme":`, e, '}'),
  );
  pieces.push('],"next":null}');
  return utf8Bytes(pieces);
};

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
function timed(make, pages) {
  const started = performance.now();
  for (const page of pages) make(page);
  return ((performance.now() - started) * 1000) / pages.length;
}

console.log(
  `Answer bytes: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; median of ${rounds} rounds\n`,
);
console.log(
  '| guide | pages of 51 | KB a page | pages beyond Latin-1 | joined µs | piece by piece µs |',
);
console.log('| --- | --: | --: | --: | --: | --: |');
for (const [file, country] of GUIDES) {
  const pages = await pagesOf(file, country);
  let wide = 0;
  let bytes = 0;
  for (const page of pages) {
    const a = joined(page);
    const b = pieceByPiece(page);
    if (!a.equals(b)) throw new Error(`${file}: the two ways give different bytes`);
    bytes += a.length;
    if (page.some(([c, e]) => BEYOND_LATIN1.test(c + e))) wide++;
  }
  const old = [];
  const now = [];
  for (let r = 0; r < rounds; r++) {
    old.push(timed(joined, pages));
    now.push(timed(pieceByPiece, pages));
  }
  console.log(
    `| ${file} | ${pages.length} | ${(bytes / pages.length / 1024).toFixed(1)} | ${Math.round((wide / pages.length) * 100)} % | ${median(old).toFixed(1)} | ${median(now).toFixed(1)} |`,
  );
}
