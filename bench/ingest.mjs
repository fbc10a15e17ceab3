#!/usr/bin/env node
// Ingest benchmark: `npm run bench:ingest` (builds first, then runs this file against dist/).
//
// Ingests the largest corpus guide (jiotv, 30 MB of XML) into a fresh SQLite file, as .gz and
// as a decompressed copy, and measures in the same run saxes alone and the pipeline without
// storage on the same bytes. Every run of every case is a child process of its own, so its peak
// RSS (process.resourceUsage().maxRSS, worker threads included) is its own.
//
// Options: --runs N (default 3, the median is reported), --scale K (also ingest a synthetic
// guide made of K renamed copies of the file, to show that memory stays flat), --file PATH.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { TextDecoder } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const CORPUS = process.env.ONAIR_CORPUS_DIR ?? resolve(ROOT, '../shared/corpus/xmltv');
const MB = 1e6;

function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
}

// ---- child: one case, one run ------------------------------------------------------------

async function saxesOnly(path) {
  const { SaxesParser } = await import('saxes');
  const parser = new SaxesParser({ position: true });
  let elements = 0;
  parser.on('opentag', () => elements++);
  parser.on('closetag', () => undefined);
  parser.on('text', () => undefined);
  const started = performance.now();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    parser.write(decoder.decode(chunk, { stream: true }));
  }
  parser.close();
  return { ms: performance.now() - started, elements };
}

/**
 * iptv-org's epg-parser, the parser a user would otherwise pick: it takes the whole document
 * as one string, so the file is read whole first (counted in the time).
 */
async function epgParserOnly(path) {
  const { default: epgParser } = await import('epg-parser');
  const started = performance.now();
  const result = epgParser.parse(readFileSync(path, 'utf8'));
  return { ms: performance.now() - started, programmes: result.programs.length };
}

/** A writer that keeps nothing: the pipeline (read, decode, parse, map) without storage. */
const nullWriter = {
  async beginIngest() {
    let programmes = 0;
    return {
      stageChannel() {},
      stageProgramme() {
        programmes++;
      },
      async drain() {},
      async analyse() {
        return {
          programmes,
          exactDuplicates: 0,
          conflictingDuplicates: 0,
          duplicateSlots: 0,
          overlaps: null,
          duplicateSamples: [],
        };
      },
      async commit() {
        return {
          channelsAdded: 0,
          channelsUpdated: 0,
          programmesAdded: 0,
          programmesUpdated: 0,
          programmesUnchanged: 0,
          programmesRemoved: 0,
          programmesPruned: 0,
        };
      },
      async abort() {},
    };
  },
};

async function ingestCase(path, mode) {
  const { ingestXmltv } = await import(join(DIST, 'catalogue/ingest.js'));
  const { openSqliteStore } = await import(join(DIST, 'storage/sqlite/sqlite-store.js'));
  const { createSqliteCatalogueWriter } = await import(
    join(DIST, 'storage/sqlite/ingest-session.js')
  );
  const dir = mkdtempSync(join(tmpdir(), 'onair-bench-'));
  const store = openSqliteStore({ path: join(dir, 'bench.db'), nowMs: Date.now() });
  try {
    const writer =
      mode === 'none'
        ? nullWriter
        : mode === 'in-thread'
          ? createSqliteCatalogueWriter(store.db, join(dir, 'bench.db'), { staging: 'in-thread' })
          : store.ingest;
    const started = performance.now();
    const summary = await ingestXmltv(
      writer,
      { source: path },
      {
        country: 'IN',
        assumeOffsetMinutes: 0,
        nowMs: Date.now(),
      },
    );
    const ms = performance.now() - started;
    return {
      ms,
      bytesRead: summary.bytesRead,
      bytesUncompressed: summary.bytesUncompressed,
      programmes: summary.programmesRead,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function child(kind, path) {
  const result =
    kind === 'saxes'
      ? await saxesOnly(path)
      : kind === 'epg-parser'
        ? await epgParserOnly(path)
        : await ingestCase(
            path,
            kind === 'pipeline' ? 'none' : kind === 'in-thread' ? 'in-thread' : 'worker',
          );
  // maxRSS (getrusage) covers the worker threads too; on Linux it also keeps the high-water
  // mark of the parent image the child was forked from, so the parent stays small (streams its
  // inputs) and VmHWM, which starts afresh at exec, is reported beside it as a check.
  const rssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ...result, rssMB, hwmMB: highWaterMB() })}\n`);
}

/** Peak RSS of this process image in MB (Linux VmHWM), or null elsewhere. */
function highWaterMB() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/** Child job: write a guide made of `copies` renamed copies of the guide at `source`. */
async function makeScaled(source, target, copies) {
  await scaledCopy(readFileSync(source, 'utf8'), copies, target);
}

// ---- parent: prepare inputs, run every case in child processes, report ---------------------

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function runChild(kind, path) {
  const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', kind, path], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (out.status !== 0) throw new Error(`${kind} failed:\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop());
}

/** K renamed copies of a guide's channels and programmes in one file, written streaming. */
async function scaledCopy(xml, copies, target) {
  const open = xml.indexOf('>', xml.indexOf('<tv')) + 1;
  const close = xml.lastIndexOf('</tv>');
  const body = xml.slice(open, close);
  const out = createWriteStream(target);
  const write = (text) =>
    new Promise((done) => (out.write(text) ? done() : out.once('drain', done)));
  await write(xml.slice(0, open));
  for (let k = 0; k < copies; k++) {
    await write(
      body
        .replaceAll('channel id="', `channel id="c${k}-`)
        .replaceAll('channel="', `channel="c${k}-`),
    );
  }
  await write(xml.slice(close));
  await new Promise((done) => out.end(done));
}

function machine() {
  const model = cpus()[0]?.model ?? 'unknown';
  let nproc = String(cpus().length);
  try {
    nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    // nproc is not everywhere; os.cpus() is close enough
  }
  return `nproc ${nproc}, ${model}, Node ${process.version}, ${process.platform}/${process.arch}`;
}

async function parent() {
  const runs = Number(arg('--runs', '3'));
  const scale = Number(arg('--scale', '0'));
  const gz = arg('--file', join(CORPUS, 'jiotv_in_epg.xml.gz'));
  const dir = mkdtempSync(join(tmpdir(), 'onair-bench-input-'));
  try {
    const plain = join(dir, 'guide.xml');
    await pipeline(createReadStream(gz), createGunzip(), createWriteStream(plain));
    const xmlBytes = statSync(plain).size;
    const cases = [
      ['saxes alone (parse only)', 'saxes', plain],
      ["iptv-org's epg-parser (parse only)", 'epg-parser', plain],
      ['pipeline without storage', 'pipeline', plain],
      ['ingest, plain XML', 'worker', plain],
      ['ingest, gzip', 'worker', gz],
      ['ingest, plain XML, staging in this thread', 'in-thread', plain],
    ];
    if (scale > 0) {
      const big = join(dir, `guide-x${scale}.xml`);
      const made = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), '--make-scaled', plain, big, String(scale)],
        { stdio: 'inherit' },
      );
      if (made.status !== 0) throw new Error('could not write the scaled guide');
      const size = Math.round(statSync(big).size / MB);
      cases.push([`saxes alone ×${scale} (${size} MB)`, 'saxes', big]);
      cases.push([`epg-parser alone ×${scale} (${size} MB)`, 'epg-parser', big]);
      cases.push([`ingest, plain XML ×${scale} (${size} MB)`, 'worker', big]);
    }
    console.log(`Onair ingest benchmark: ${gz} (${(xmlBytes / MB).toFixed(1)} MB of XML)`);
    console.log(`Machine: ${machine()}`);
    console.log(
      `Each case: ${runs} runs, each in its own process; median time, highest peak RSS.\n`,
    );
    console.log(
      `Parent process RSS ${Math.round(process.memoryUsage().rss / MB)} MB (children's maxRSS cannot be below it on Linux).\n`,
    );
    console.log('| case | time (s) | MB/s (XML) | programmes/s | peak RSS maxRSS / VmHWM (MB) |');
    console.log('|---|---|---|---|---|');
    for (const [label, kind, path] of cases) {
      const results = [];
      for (let i = 0; i < runs; i++) results.push(runChild(kind, path));
      const ms = median(results.map((r) => r.ms));
      const bytes =
        kind === 'saxes' || kind === 'epg-parser'
          ? statSync(path).size
          : results[0].bytesUncompressed;
      const programmes = results[0].programmes;
      const rss = Math.max(...results.map((r) => r.rssMB));
      const hwm = Math.max(...results.map((r) => r.hwmMB ?? 0));
      const perSecond =
        programmes === undefined ? '–' : Math.round(programmes / (ms / 1000)).toLocaleString('en');
      console.log(
        `| ${label} | ${(ms / 1000).toFixed(2)} | ${(bytes / MB / (ms / 1000)).toFixed(1)} | ${perSecond} | ${Math.round(rss)} / ${hwm > 0 ? Math.round(hwm) : '–'} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4]);
else if (process.argv[2] === '--make-scaled') {
  await makeScaled(process.argv[3], process.argv[4], Number(process.argv[5]));
} else await parent();
