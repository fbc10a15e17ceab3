import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipIfGzip } from '../../src/catalogue/ingest/byte-source.js';
import { readXmltv } from '../../src/catalogue/xmltv/xmltv-reader.js';
import { CREDIT_ROLES, detailsOf } from '../../src/domain/programme-details.js';
import { formatXmltvUtc, parseXmltvTime } from '../../src/domain/xmltv-time.js';
import { INSTALL_TIMEOUT_MS } from '../helpers/debian-packages.js';
import {
  compareRichCounts,
  ensureReferenceTools,
  limiter,
  LOCAL_TIME,
  noRichCounts,
  ProgrammeKeys,
  RICH_COUNT_NAMES,
  type RichComparison,
  type RichCountName,
  type RichCounts,
} from '../helpers/xmltv-reference.js';

/**
 * Issue 21: every corpus guide's rich elements come through. Per programme of every corpus file,
 * Onair's counts of episode numbers, credits (all and per role), images (programme icons and
 * images), sub-titles, ratings, star ratings, keywords and urls equal what the XMLTV reference
 * library (xmltv-util) reads of it, plus what the library skips by its own warnings (elements out
 * of the DTD's order, a rating without <value>: Onair keeps those). And where a file holds such
 * elements (its text counted apart from either reader), both sides count some.
 */
const CORPUS =
  process.env['ONAIR_CORPUS_DIR'] ?? resolve(import.meta.dirname, '../fixtures/xmltv/corpus');

/** Onair's counts of one programme's rich data. */
function countsOf(details: ReturnType<typeof detailsOf>): RichCounts {
  const counts = noRichCounts();
  counts['episode-num'] = details.episodeIds.length;
  counts.credits = details.credits.length;
  for (const credit of details.credits) counts[`credits.${credit.role}`]++;
  counts.images = details.images.length;
  counts['sub-title'] = details.subTitles.length;
  counts.rating = details.ratings.length;
  counts['star-rating'] = details.starRatings.length;
  counts.keyword = details.keywords.length;
  counts.url = details.urls.length;
  return counts;
}

/**
 * Onair's side: the XMLTV reader's elements of each programme through detailsOf, as the ingest
 * reads them (no store: the counts are the domain's, and reading is fast).
 */
async function onairCounts(path: string, offsetMinutes: number): Promise<Map<string, RichCounts>> {
  const utcForm = (text: string): string => {
    const ms = parseXmltvTime(text, offsetMinutes);
    return ms === null ? '' : formatXmltvUtc(ms);
  };
  const keys = new ProgrammeKeys();
  const counts = new Map<string, RichCounts>();
  await readXmltv(
    gunzipIfGzip(createReadStream(path), () => undefined),
    {
      channel: () => undefined,
      programme: (p) => {
        const ms = p.start === null ? null : parseXmltvTime(p.start, offsetMinutes);
        const key = keys.next(p.channel ?? '', ms === null ? null : ms / 1000);
        counts.set(key, countsOf(detailsOf(p.elements, utcForm)));
      },
    },
  );
  return counts;
}

/**
 * What the file holds, from its text alone: start tags inside `<programme>` elements. Icons,
 * images and urls inside ratings and credits are not the programme's own, so those are cut
 * first. Only whether a count is zero is used (a tag in a comment or CDATA would count).
 */
function heldIn(path: string): RichCounts {
  const bytes = readFileSync(path);
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString(
    'latin1',
  );
  const held = noRichCounts();
  const tags = (within: string, name: string) =>
    within.match(new RegExp(`<${name}[\\s/>]`, 'g'))?.length ?? 0;
  for (const [programme] of text.matchAll(/<programme[\s>][\s\S]*?<\/programme>/g)) {
    for (const [credits] of programme.matchAll(/<credits[\s>][\s\S]*?<\/credits>/g)) {
      for (const role of CREDIT_ROLES) {
        const n = tags(credits, role);
        held[`credits.${role}`] += n;
        held.credits += n;
      }
    }
    const own = programme.replace(/<(credits|rating|star-rating)[\s>][\s\S]*?<\/\1>/g, '');
    held.images += tags(own, 'icon') + tags(own, 'image');
    for (const name of ['episode-num', 'sub-title', 'keyword', 'url'] as const) {
      held[name] += tags(own, name);
    }
    held.rating += tags(programme, 'rating');
    held['star-rating'] += tags(programme, 'star-rating');
  }
  return held;
}

const corpusPresent = existsSync(CORPUS);
const files = corpusPresent
  ? readdirSync(CORPUS)
      .filter((f) => /\.xml(\.gz)?$/.test(f))
      .sort()
  : [];
const results = new Map<string, ReturnType<typeof compareRichCounts>>();
const rows: [file: string, comparison: RichComparison, held: RichCounts][] = [];

/** The table printed once: per file, Onair's totals (the library's read + skipped when not equal). */
function table(): string {
  const shown: RichCountName[] = RICH_COUNT_NAMES.filter(
    (name) => !name.startsWith('credits.') || rows.some(([, c]) => c.onair[name] > 0),
  );
  const header = ['file', 'programmes', ...shown];
  const lines = rows.map(([file, c, held]) => [
    file,
    String(c.programmes),
    ...shown.map((name) => {
      const library = c.reference[name] + c.skippedByReference[name];
      let cell = String(c.onair[name]);
      if (c.skippedByReference[name] > 0) {
        cell += ` (lib ${c.reference[name]}+${c.skippedByReference[name]} skipped)`;
      } else if (library !== c.onair[name]) cell += ` (lib ${library})`;
      if (held[name] !== c.onair[name]) cell += ` [text ${held[name]}]`;
      return cell;
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ');
  return [
    'Rich elements per corpus file, Onair (the reference library read + skipped where it skips):',
    format(header),
    ...lines.map(format),
  ].join('\n');
}

if (!corpusPresent) {
  describe('rich elements against the XMLTV reference tools', () => {
    it('have a corpus to compare', () => {
      throw new Error(`no XMLTV corpus at ${CORPUS} (set ONAIR_CORPUS_DIR)`);
    });
  });
} else {
  describe('rich elements against the XMLTV reference tools', () => {
    beforeAll(() => {
      ensureReferenceTools();
      // The library reads two files at a time (the machine's cores).
      const inTurn = limiter(2);
      for (const file of files) {
        const local = LOCAL_TIME[file];
        const result = inTurn(() =>
          compareRichCounts(join(CORPUS, file), local?.zone ?? 'UTC', (path) =>
            onairCounts(path, local?.assumeOffsetMinutes ?? 0),
          ),
        );
        result.catch(() => undefined); // awaited, and reported, by the file's test
        results.set(file, result);
      }
    }, INSTALL_TIMEOUT_MS);

    afterAll(() => {
      rows.sort((a, b) => a[0].localeCompare(b[0]));
      if (rows.length > 0) console.log(table());
    });

    // The first run on a machine waits for the library (a view is cached per file afterwards).
    it.each(files)(
      '%s: per programme, the same counts of rich elements as the reference library',
      { timeout: 900_000 },
      async (file) => {
        const pending = results.get(file);
        if (pending === undefined) throw new Error(`${file} was not compared`);
        const result = await pending;
        if (!result.accepted)
          throw new Error(`the reference library rejects ${file}: ${result.error}`);
        const { comparison } = result;
        const held = heldIn(join(CORPUS, file));
        rows.push([file, comparison, held]);
        expect(comparison.differences, `${comparison.differing} programmes differ`).toEqual([]);
        for (const name of RICH_COUNT_NAMES) {
          if (held[name] === 0) continue;
          expect(comparison.onair[name], `${file} holds ${name}: Onair's total`).toBeGreaterThan(0);
          expect(
            comparison.reference[name] + comparison.skippedByReference[name],
            `${file} holds ${name}: the library's total`,
          ).toBeGreaterThan(0);
        }
      },
    );
  });
}
