import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestSummary } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import { INSTALL_TIMEOUT_MS } from '../helpers/debian-packages.js';
import { openTempStore } from '../helpers/temp-store.js';
import {
  ensureReferenceTools,
  limiter,
  LOCAL_TIME,
  referenceView,
  type ReferenceProgramme,
  type ReferenceView,
} from '../helpers/xmltv-reference.js';
import { NOW, ingest } from './ingest-helpers.js';

/**
 * Every guide of the corpus (test/fixtures/xmltv/corpus), read by Onair and by the XMLTV reference library (Debian's
 * xmltv-util: the parser and date handling behind tv_grep, tv_sort and tv_to_text). Per channel,
 * Onair stores exactly the reference's programmes once exact duplicates are removed and, by
 * Onair's documented rule, programmes of a channel with the same start collapsed into the later
 * one; every start and stop is the same UTC instant. A file the library rejects is reported and
 * fails the test unless it is listed in REJECTED with the reason.
 */
const CORPUS =
  process.env['ONAIR_CORPUS_DIR'] ?? resolve(import.meta.dirname, '../fixtures/xmltv/corpus');

/** Files the reference library refuses to read, with the reason (none in the corpus today). */
const REJECTED: Record<string, string> = {};

interface FileResult {
  file: string;
  reference: ReferenceView;
  summary: IngestSummary;
  /** Onair's stored programmes by XMLTV channel id: [start ms, stop ms, start, stop]. */
  stored: Map<string, [number | null, number | null, string, string][]>;
}

/** What Onair should hold per channel according to the reference view. */
function expectedFrom(programmes: ReferenceProgramme[]) {
  const seen = new Set<string>();
  let exactDuplicates = 0;
  const afterExact = new Map<string, number>();
  // Onair's rule: one programme per (channel, start), the later in the file wins.
  const slots = new Map<string, Map<number, number | null>>();
  for (const p of programmes) {
    const key = `${p.channel}\u0000${p.digest}`;
    if (seen.has(key)) exactDuplicates++;
    else {
      seen.add(key);
      afterExact.set(p.channel, (afterExact.get(p.channel) ?? 0) + 1);
    }
    let channel = slots.get(p.channel);
    if (channel === undefined) slots.set(p.channel, (channel = new Map()));
    channel.set(p.start, p.stop);
  }
  let sameStart = 0;
  for (const [channel, starts] of slots) sameStart += (afterExact.get(channel) ?? 0) - starts.size;
  return { slots, afterExact, exactDuplicates, sameStart };
}

const corpusPresent = existsSync(CORPUS);
const files = corpusPresent
  ? readdirSync(CORPUS)
      .filter((f) => /\.xml(\.gz)?$/.test(f))
      .sort()
  : [];
const results = new Map<string, Promise<FileResult>>();
const report: string[] = [];

if (!corpusPresent) {
  describe('XMLTV reference tools', () => {
    it('have a corpus to compare', () => {
      throw new Error(`no XMLTV corpus at ${CORPUS} (set ONAIR_CORPUS_DIR)`);
    });
  });
} else {
  describe('Onair against the XMLTV reference tools', () => {
    beforeAll(() => {
      ensureReferenceTools();
      // The library reads two files at a time (the machine's cores) while Onair ingests.
      const inTurn = limiter(2);
      let previous: Promise<unknown> = Promise.resolve();
      for (const file of files) {
        const zone = LOCAL_TIME[file]?.zone ?? 'UTC';
        const view = inTurn(() => referenceView(join(CORPUS, file), zone));
        const ingested = previous.then(() => ingestAndRead(file));
        previous = ingested.catch(() => undefined);
        const result = Promise.all([view, ingested]).then(([reference, onair]) => ({
          file,
          reference,
          ...onair,
        }));
        result.catch(() => undefined); // awaited, and reported, by the file's test
        results.set(file, result);
      }
    }, INSTALL_TIMEOUT_MS);

    afterAll(() => {
      if (report.length === 0) return;
      const text = [
        'Onair against the XMLTV reference library (xmltv-util), per corpus file:',
        ...report,
      ].join('\n');
      console.log(text);
      mkdirSync(resolve(import.meta.dirname, '../../test-results'), { recursive: true });
      writeFileSync(
        resolve(import.meta.dirname, '../../test-results/xmltv-reference.txt'),
        `${text}\n`,
      );
    });

    // The first run on a machine waits for the library: minutes of CPU for the whole corpus.
    it.each(files)(
      '%s: same programmes per channel, same UTC starts and stops',
      { timeout: 900_000 },
      async (file) => {
        const { reference, summary, stored } = await (results.get(file) as Promise<FileResult>);
        if (!reference.accepted) {
          report.push(`  ${file}: REJECTED by the reference library: ${reference.error}`);
          expect(
            REJECTED[file],
            `the reference library rejects ${file}: ${reference.error}`,
          ).toBeDefined();
          return;
        }
        expect(
          REJECTED[file],
          `${file} is listed as rejected but the library reads it`,
        ).toBeUndefined();
        const expected = expectedFrom(reference.programmes);

        // The same channels have programmes on both sides.
        expect([...stored.keys()].sort()).toEqual([...expected.slots.keys()].sort());
        let compared = 0;
        for (const [channel, starts] of expected.slots) {
          const want = [...starts.entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([start, stop]) => [
              start * 1000,
              stop === null ? null : stop * 1000,
              formatXmltvUtc(start * 1000),
              stop === null ? '' : formatXmltvUtc(stop * 1000),
            ]);
          const got = stored.get(channel) ?? [];
          expect(got, `${file}: channel ${channel}`).toEqual(want);
          compared += got.length;
        }
        expect(compared).toBe(summary.programmesStored);
        // Counts: the reference's programmes after exact-duplicate removal are Onair's, except the
        // same-start conflicts Onair collapsed and counted itself; its exact duplicates are the
        // reference's too.
        let referenceAfterExact = 0;
        for (const n of expected.afterExact.values()) referenceAfterExact += n;
        expect(summary.programmesRead).toBe(reference.programmes.length);
        expect(referenceAfterExact - summary.programmesStored).toBe(summary.conflictingDuplicates);
        expect(summary.exactDuplicates).toBe(expected.exactDuplicates);
        const warnings = new Map<string, number>();
        for (const w of reference.warnings) warnings.set(w, (warnings.get(w) ?? 0) + 1);
        report.push(
          `  ${file}: ${reference.programmes.length} programmes in ${expected.slots.size} channels; ` +
            `${expected.exactDuplicates} exact duplicates, ${expected.sameStart} same-start conflicts ` +
            `(Onair: ${summary.exactDuplicates} exact + ${summary.conflictingDuplicates} conflicting); ` +
            `${compared} stored programmes equal to the reference, start and stop` +
            (reference.cached ? ' [reference view from cache]' : '') +
            (warnings.size === 0
              ? ''
              : `; library warnings: ${[...warnings].map(([w, n]) => `${n} × "${w}"`).join(', ')}`),
        );
      },
    );
  });
}

async function ingestAndRead(file: string): Promise<Omit<FileResult, 'file' | 'reference'>> {
  const temp = openTempStore(NOW);
  try {
    const summary = await ingest(temp.store, join(CORPUS, file), {
      assumeOffsetMinutes: LOCAL_TIME[file]?.assumeOffsetMinutes ?? 0,
    });
    const rows = temp.store.db
      .prepare(
        `SELECT c.xmltv_id, p.start_ms, p.stop_ms, p.start, p.stop FROM programmes AS p
         JOIN channels AS c ON c.id = p.channel_id ORDER BY c.xmltv_id, p.start_ms`,
      )
      .raw()
      .all() as [string, number | null, number | null, string, string][];
    const stored = new Map<string, [number | null, number | null, string, string][]>();
    for (const [channel, ...rest] of rows) {
      let list = stored.get(channel);
      if (list === undefined) stored.set(channel, (list = []));
      list.push(rest);
    }
    return { summary, stored };
  } finally {
    await temp.dispose();
  }
}
