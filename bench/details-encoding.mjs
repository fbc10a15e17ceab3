#!/usr/bin/env node
// Rich data's stored text, encoded in a loop: `node bench/details-encoding.mjs [FILE] [--rounds N]
// [--programmes N]` (after `npm run build`; ONAIR_BENCH_DIST measures another build).
//
// Reads FILE (default: the corpus's largest guide, gunzipped) through the ingest's pipeline with
// a writer that keeps the staged programmes, decodes each one's details text back into details,
// checks that encodeDetails gives the same text again, then encodes them all N times (default
// 20) and prints the fastest and the median round in nanoseconds a programme.
//
// On a machine whose speed moves from run to run, count instructions instead: the same loop
// under callgrind with two round counts, the difference divided by the extra encodings, e.g.
//   valgrind --tool=callgrind node bench/details-encoding.mjs FILE --programmes 15000 --rounds 3
//   valgrind --tool=callgrind node bench/details-encoding.mjs FILE --programmes 15000 --rounds 13
// ((Ir of the second − Ir of the first) / 150,000; bench/INGEST.md).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { arg, discardingWriter } from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ONAIR_BENCH_DIST ?? join(ROOT, 'dist');
const { ingestXmltv } = await import(
  pathToFileURL(join(DIST, 'catalogue/ingest/ingest-xmltv.js')).href
);
const { decodeDetails, encodeDetails } = await import(
  pathToFileURL(join(DIST, 'domain/programme-details.js')).href
);

const rounds = Number(arg('--rounds', 20));
const limit = Number(arg('--programmes', Infinity));
const given = process.argv[2]?.startsWith('--') ? undefined : process.argv[2];
let file = given;
let temp = null;
if (file === undefined) {
  temp = mkdtempSync(join(tmpdir(), 'onair-details-'));
  file = join(temp, 'guide.xml');
  writeFileSync(
    file,
    gunzipSync(readFileSync(join(ROOT, 'test/fixtures/xmltv/corpus/jiotv_in_epg.xml.gz'))),
  );
}

/** The staged programmes of `path`, as the pipeline hands them to a store. */
async function stagedProgrammes(path) {
  const staged = [];
  const writer = discardingWriter((row) => {
    if (staged.length < limit) staged.push(row);
  });
  await ingestXmltv(writer, { source: path }, { nowMs: 0 });
  return staged;
}

try {
  const items = (await stagedProgrammes(file)).map((row) => {
    // The v1 texts the pipeline gave the row: its categories are joined by ', ' in `category`.
    const v1 = {
      title: row.title,
      desc: row.desc,
      categories: row.category === '' ? [] : row.category.split(', '),
    };
    return { v1, details: decodeDetails(row.details, v1), text: row.details };
  });
  const differ = items.filter((i) => encodeDetails(i.details, i.v1) !== i.text).length;
  if (differ > 0) throw new Error(`${differ} programmes encode to another text than staged`);
  const perProgramme = [];
  let chars = 0;
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (const i of items) chars += encodeDetails(i.details, i.v1).length;
    perProgramme.push(Number(process.hrtime.bigint() - started) / items.length);
  }
  perProgramme.sort((a, b) => a - b);
  const median = perProgramme[perProgramme.length >> 1] ?? 0;
  console.log(
    `${items.length} programmes × ${rounds} rounds (${chars} characters): fastest round ` +
      `${(perProgramme[0] ?? 0).toFixed(0)} ns a programme, median ${median.toFixed(0)} ns`,
  );
} finally {
  if (temp !== null) rmSync(temp, { recursive: true, force: true });
}
