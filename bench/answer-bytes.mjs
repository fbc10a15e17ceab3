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
//
// Then the same for each channel's v1 schedule (every programme's entry, serialised by the
// route's schema, comma-separated, with each one's offset), as the schedule cache keeps it:
// joined and encoded, then each entry measured for its offset, as before; or
// `commaJoinedUtf8`, each measured and written at its place, as now.
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import fastJson from 'fast-json-stringify';
import { arg, corpusCatalogue } from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ONAIR_BENCH_DIST ?? join(ROOT, 'dist');
const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { richProgrammeOf } = await load('domain/programme.js');
const { commaJoinedUtf8, utf8Bytes } = await load('http/answers/utf8-bytes.js');
const { ProgrammeEntry } = await load('http/schemas.js');
const serialiseEntry = fastJson(ProgrammeEntry);

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

/**
 * The pages of a guide, each a list of [channel JSON, entry JSON], and its channels' schedules,
 * each a list of v1 entries' JSON.
 */
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
    const schedules = channels.map((c) =>
      programmes.filter((p) => p.channelId === c.id).map((p) => serialiseEntry(p.programme)),
    );
    return { pages, schedules };
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

const joinedSchedule = (entries) => {
  const bytes = Buffer.from(entries.join(','));
  const offsets = new Uint32Array(entries.length + 1);
  let at = 0;
  for (let i = 0; i < entries.length; i++) {
    offsets[i] = at;
    at += Buffer.byteLength(entries[i]) + 1;
  }
  offsets[entries.length] = at;
  return { bytes, offsets };
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
/** The median over the rounds of the mean µs an item, each way, the two ways in turn. */
function alternating(before, now, items) {
  const times = [[], []];
  for (let r = 0; r < rounds; r++) {
    times[0].push(timed(before, items));
    times[1].push(timed(now, items));
  }
  return times.map(median);
}

const scheduleRows = [];
for (const [file, country] of GUIDES) {
  const { pages, schedules } = await pagesOf(file, country);
  let wide = 0;
  let bytes = 0;
  for (const page of pages) {
    const a = joined(page);
    const b = pieceByPiece(page);
    if (!a.equals(b)) throw new Error(`${file}: the two ways give different bytes`);
    bytes += a.length;
    if (page.some(([c, e]) => BEYOND_LATIN1.test(c + e))) wide++;
  }
  const [old, now] = alternating(joined, pieceByPiece, pages);
  console.log(
    `| ${file} | ${pages.length} | ${(bytes / pages.length / 1024).toFixed(1)} | ${Math.round((wide / pages.length) * 100)} % | ${old.toFixed(1)} | ${now.toFixed(1)} |`,
  );

  let scheduleBytes = 0;
  for (const entries of schedules) {
    const a = joinedSchedule(entries);
    const b = commaJoinedUtf8(entries);
    if (!a.bytes.equals(b.bytes) || a.offsets.join() !== b.offsets.join()) {
      throw new Error(`${file}: the two schedules differ`);
    }
    scheduleBytes += a.bytes.length;
  }
  const [oldSchedule, newSchedule] = alternating(joinedSchedule, commaJoinedUtf8, schedules);
  scheduleRows.push(
    `| ${file} | ${schedules.length} | ${(scheduleBytes / schedules.length / 1024).toFixed(1)} | ${oldSchedule.toFixed(1)} | ${newSchedule.toFixed(1)} |`,
  );
}

console.log('\n| guide | channels | KB a schedule | joined µs | written in place µs |');
console.log('| --- | --: | --: | --: | --: |');
for (const row of scheduleRows) console.log(row);
