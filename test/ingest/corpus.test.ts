import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import { NOW, ingest } from './ingest-helpers.js';

/**
 * Every real guide of the corpus (test/fixtures/xmltv/corpus), checked against its SOURCES.md. The numbers in
 * `sources` are copied from SOURCES.md (table and per-file quirks, computed there with Python's
 * ElementTree); where our definitions differ, the reconciled numbers sit beside them with the
 * reason.
 */
const CORPUS =
  process.env['ONAIR_CORPUS_DIR'] ?? resolve(import.meta.dirname, '../fixtures/xmltv/corpus');

interface SourcesRow {
  /** Country column of SOURCES.md, as ingested (DE/AT → DE, MX/LatAm → MX). */
  country: string;
  /** SOURCES says the times carry no offset but are local time at +08:00. */
  assumeOffsetMinutes?: number;
  /** SOURCES "Channels": `<channel>` elements. */
  channelElements: number;
  /** SOURCES "Programmes": `<programme>` elements. */
  programmes: number;
  exactDuplicates: number;
  /** SOURCES "overlaps" (its definition: see `conflictingThatOverlap`). */
  overlaps: number;
  zeroOrNegative: number;
  withoutProgrammes: number;
  missingStop: number;
  sha256: string;
  /** Distinct channel ids, where a `<channel>` is repeated (SOURCES counts elements). */
  distinctChannels?: number;
  /**
   * Same (channel, start) with different content. SOURCES drops exact copies, sorts each
   * channel by (start, stop) and counts a programme that starts before the previous one stops;
   * a conflicting pair with the same start is an overlap there when the first copy's stop is
   * after the start. We collapse such a pair into one programme (the later wins), count it as a
   * conflicting duplicate, and count overlaps among what is stored. So
   * SOURCES overlaps = our overlaps + `conflictingThatOverlap`.
   */
  conflicting?: number;
  conflictingThatOverlap?: number;
}

const sources: Record<string, SourcesRow> = {
  'mjh_nz_epg.xml.gz': {
    country: 'NZ',
    channelElements: 45,
    programmes: 5510,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 9,
    missingStop: 0,
    sha256: '7e3f70b284e1cd0d9032cbdcf532be3b9e78904e1d2989a111e3cdffa38ea46a',
  },
  'mjh_au_sydney_epg.xml.gz': {
    country: 'AU',
    channelElements: 176,
    programmes: 13581,
    exactDuplicates: 21,
    overlaps: 2680,
    zeroOrNegative: 0,
    withoutProgrammes: 42,
    missingStop: 0,
    sha256: 'cc48fb505524e3031fd2c16ee7569aa2a6626429d956824bed558203e0e2e44f',
  },
  'mjh_dstv_za.xml.gz': {
    country: 'ZA',
    channelElements: 167,
    distinctChannels: 166, // "1 duplicated <channel> id"
    programmes: 14291,
    exactDuplicates: 267,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 25,
    missingStop: 0,
    sha256: '746e155a059a003529301950e7138f386aa90655844e7759bf1b025f60e15e70',
  },
  'mjh_pbs_us_all.xml.gz': {
    country: 'US',
    channelElements: 146,
    programmes: 5221,
    exactDuplicates: 0,
    overlaps: 1,
    zeroOrNegative: 0,
    withoutProgrammes: 0,
    missingStop: 0,
    sha256: '2ec6d04a44ed779d657036b35e4b7646b0028ac97de2460ec4f4028e241768e5',
  },
  'mjh_singtel_sg_epg.xml.gz': {
    country: 'SG',
    channelElements: 991,
    distinctChannels: 124, // "867 repeated <channel> elements"
    programmes: 30341,
    exactDuplicates: 399,
    overlaps: 18,
    // 402 programmes repeat a (channel, start): 399 exact copies and 3 with other content,
    // all 3 overlapping their first copy: 18 = 15 overlaps among stored programmes + 3.
    conflicting: 3,
    conflictingThatOverlap: 3,
    zeroOrNegative: 0,
    withoutProgrammes: 2,
    missingStop: 0,
    sha256: 'f2ce320dd6353c2f044fe467d9a69c26a105667825bbe374123f9e463bac4489',
  },
  'mjh_samsungtvplus_kr.xml.gz': {
    country: 'KR',
    channelElements: 179,
    programmes: 1425,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 0,
    missingStop: 0,
    sha256: '598f106d398b0dcef285bdb7dd419c6e03f2dba91c03a3fa2dd7fed2855b0fb2',
  },
  'mjh_plex_fr.xml.gz': {
    country: 'FR',
    channelElements: 239,
    programmes: 7762,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 147,
    missingStop: 0,
    sha256: 'bff4516b84d4cc69c64ab088c142b5b8e3c85652f88214427d121896e1c72470',
  },
  'freeview_ie_epg.xml': {
    country: 'IE',
    channelElements: 9,
    programmes: 2070,
    exactDuplicates: 204,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 1,
    missingStop: 0,
    sha256: '613d28a6e2e2d97d2d814d5a3f0cc5a811f08d330c00c3efb5f1a25540ecfecf',
  },
  'epgmn_mn_weekly_epg_updated.xml': {
    country: 'MN',
    assumeOffsetMinutes: 480,
    channelElements: 36,
    programmes: 2215,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 1,
    missingStop: 0,
    sha256: '05ef561d33d7d9229d01929d79d5fe923318f5154e53e161f8ae07fc475efd26',
  },
  'burningc4_cn_guide.xml': {
    country: 'CN',
    assumeOffsetMinutes: 480,
    channelElements: 60,
    programmes: 5341,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 3,
    withoutProgrammes: 0,
    missingStop: 0,
    sha256: '4046bc6ebc91dcd5ab5a353c1f0a2741e777db85d81c48a4293fba6b9536e304',
  },
  'akkradet_th_guide.xml.gz': {
    country: 'TH',
    channelElements: 142,
    programmes: 4056,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 94,
    missingStop: 0,
    sha256: '0a9c8514fa3da93774cf3b8bd41c5d6abe32d4b86c04f2cd5ca6f58ea6dc75e8',
  },
  'michaz1988_de_guide.xml.gz': {
    country: 'DE',
    channelElements: 118,
    programmes: 12125,
    exactDuplicates: 0,
    overlaps: 0,
    zeroOrNegative: 0,
    withoutProgrammes: 1,
    missingStop: 0,
    sha256: 'b52e2f89cd3fde4e0353db9a2e2f68c6e23ff41acdfaa65654e4c9e5d6b5d0be',
  },
  'ferezvi_latam_guide.xml': {
    country: 'MX',
    channelElements: 114,
    programmes: 5295,
    exactDuplicates: 0,
    overlaps: 0,
    // The 6 zero-length programmes each share their start with the next programme, which has
    // other content: 6 conflicting pairs, none an overlap (the first copy stops at the start).
    conflicting: 6,
    conflictingThatOverlap: 0,
    zeroOrNegative: 6,
    withoutProgrammes: 1,
    missingStop: 0,
    sha256: '6fc26d7bf58e702732bcde2ca4db12aa68f523f5398547f260988e5fc30af95e',
  },
  'jiotv_in_epg.xml.gz': {
    country: 'IN',
    channelElements: 1038,
    programmes: 98170,
    exactDuplicates: 0,
    overlaps: 72,
    // All 72 are pairs "IND 24" / "IND24 " with the same start on channel 1698: conflicting
    // duplicates. 69 pairs overlap their first copy; in 3 both copies stop before they start
    // (negative length), so SOURCES sees no overlap there. Among stored programmes 3 real
    // overlaps remain (channels 872, 873, 874): 72 = 3 + 69.
    conflicting: 72,
    conflictingThatOverlap: 69,
    zeroOrNegative: 1180,
    withoutProgrammes: 0,
    missingStop: 0,
    sha256: 'a69253475c138e08dc1bfc35984646f4d88d59075eb646251d2ef1180e307474',
  },
};

/** A digest of every programme row, to see that a re-ingest leaves them byte-for-byte. */
function programmesDigest(store: SqliteStore): string {
  const hash = createHash('sha256');
  for (const row of store.db.prepare('SELECT * FROM programmes ORDER BY id').raw().iterate()) {
    hash.update(JSON.stringify(row));
  }
  return hash.digest('hex');
}

const corpusPresent = existsSync(CORPUS);

if (!corpusPresent && process.env['CI']) {
  describe('XMLTV corpus', () => {
    it('is present in CI', () => {
      throw new Error(`no XMLTV corpus at ${CORPUS} (set ONAIR_CORPUS_DIR)`);
    });
  });
} else if (!corpusPresent) {
  console.warn(`corpus.test.ts: skipped, no XMLTV corpus at ${CORPUS} (set ONAIR_CORPUS_DIR)`);
  describe.skip(`XMLTV corpus (skipped: no corpus at ${CORPUS}; set ONAIR_CORPUS_DIR)`, () => {
    it('ingests every file', () => undefined);
  });
} else {
  describe('XMLTV corpus', () => {
    it('holds exactly the files SOURCES.md describes', () => {
      const files = readdirSync(CORPUS).filter((f) => f !== 'SOURCES.md');
      expect(files.sort()).toEqual(Object.keys(sources).sort());
    });

    describe.each(Object.entries(sources))('%s', (file, expected) => {
      let temp: TempStore;
      let store: SqliteStore;

      beforeAll(() => {
        temp = openTempStore(NOW);
        store = temp.store;
      });
      afterAll(async () => {
        await temp.dispose();
      });

      it('ingests with the counts of SOURCES.md, and a re-ingest changes nothing', async () => {
        const path = join(CORPUS, file);
        const offset = expected.assumeOffsetMinutes ?? 0;
        const summary = await ingest(store, path, {
          country: expected.country,
          assumeOffsetMinutes: offset,
        });
        const conflicting = expected.conflicting ?? 0;
        expect(summary).toMatchObject({
          sha256: expected.sha256,
          gzip: file.endsWith('.gz'),
          channelElements: expected.channelElements,
          channels: expected.distinctChannels ?? expected.channelElements,
          repeatedChannelElements:
            expected.channelElements - (expected.distinctChannels ?? expected.channelElements),
          channelsWithoutProgrammes: expected.withoutProgrammes,
          undeclaredChannels: 0,
          programmesRead: expected.programmes,
          programmesSkipped: 0,
          exactDuplicates: expected.exactDuplicates,
          conflictingDuplicates: conflicting,
          programmesStored: expected.programmes - expected.exactDuplicates - conflicting,
          overlaps: expected.overlaps - (expected.conflictingThatOverlap ?? 0),
          missingStop: expected.missingStop,
          needsReviewByReason: {
            unparseableStart: 0,
            startBeforeBroadcasts: 0,
            unparseableStop: 0,
            stopNotAfterStart: expected.zeroOrNegative,
          },
        });
        expect(summary.merge).toMatchObject({
          channelsAdded: summary.channels,
          programmesAdded: summary.programmesStored,
        });
        const db = store.db;
        expect(db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(
          summary.programmesStored,
        );
        expect(db.prepare('SELECT DISTINCT country FROM channels').pluck().all()).toEqual([
          expected.country,
        ]);
        // Every start parsed, so every stored start is in the API's UTC form.
        expect(
          db
            .prepare(`SELECT count(*) FROM programmes WHERE start NOT GLOB '[0-9]*[0-9] +0000'`)
            .pluck()
            .get(),
        ).toBe(0);

        const digest = programmesDigest(store);
        const again = await ingest(store, path, {
          country: expected.country,
          assumeOffsetMinutes: offset,
          nowMs: NOW + 86_400_000,
        });
        expect(again.merge).toEqual({
          channelsAdded: 0,
          channelsUpdated: 0,
          programmesAdded: 0,
          programmesUpdated: 0,
          programmesUnchanged: summary.programmesStored,
          programmesRemoved: 0,
          programmesPruned: 0,
        });
        expect(programmesDigest(store)).toBe(digest);
      });

      if (file === 'ferezvi_latam_guide.xml') {
        it('keeps the full programme, not the zero-length one, at each conflicting start', () => {
          // The 6 zero-length programmes were read (and counted above) but lost their slot.
          expect(
            store.db
              .prepare('SELECT count(*) FROM programmes WHERE needs_review = 1')
              .pluck()
              .get(),
          ).toBe(0);
        });
      }

      if (expected.assumeOffsetMinutes !== undefined) {
        it('reads its offset-less times at +08:00', async () => {
          const [xmltvId, rawStart, rawStop, utcStart, utcStop] =
            file === 'burningc4_cn_guide.xml'
              ? ['cctv1', '20260822163100', '20260822171500', '20260822083100', '20260822091500']
              : ['МҮОНТ', '20260313000000', '20260313070000', '20260312160000', '20260312230000'];
          const [first] = await store.catalogue.listProgrammes(channelIdFor(xmltvId));
          expect(rawStart).not.toBe(utcStart);
          expect(rawStop).not.toBe(utcStop);
          expect(first).toMatchObject({ start: `${utcStart} +0000`, stop: `${utcStop} +0000` });
        });
      }
    });
  });
}
