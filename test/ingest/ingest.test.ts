import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { programmeIdFor } from '../../src/domain/programme-id.js';
import { windowRange } from '../../src/domain/schedule-window.js';
import { parseXmltvTime } from '../../src/domain/xmltv-time.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { CatalogueWriter } from '../../src/storage/catalogue-writer.js';
import type { Store } from '../../src/storage/store.js';
import {
  TEST_ENGINE,
  openEngineStore,
  storeForEachTest,
  type EngineStore,
} from '../helpers/engines.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import {
  NOW,
  fixturePath,
  fixtureText,
  ingest,
  lineOf,
  readerView,
  syntheticGuide,
  tempTables,
} from './ingest-helpers.js';

// Reading and storing a guide gives the same catalogue on both engines: each vitest project
// runs this file on its own. The cases about SQLite's own machinery run on SQLite only.
const freshStore = storeForEachTest(TEST_ENGINE, NOW);
let temp: EngineStore;
let store: Store;

beforeEach(() => {
  temp = freshStore();
  store = temp.store;
});

const onSqlite = TEST_ENGINE === 'sqlite';

/** The SQLite store under test, for the cases about SQLite's own staging. */
function sqliteTemp(): TempStore {
  if (temp.engine !== 'sqlite') throw new Error('a SQLite-only case ran on PostgreSQL');
  return temp;
}

const channelRow = async (xmltvId: string) =>
  (await temp.sql(`SELECT * FROM channels WHERE xmltv_id = '${xmltvId}'`))[0];

describe('ingest of a well-formed guide', () => {
  it('stores channels and programmes by the catalogue rules', async () => {
    const summary = await ingest(store, fixturePath('basic.xml'), { country: 'IE' });
    const rte = channelIdFor('rte1.ie');
    const tg4 = channelIdFor('tg4.ie');
    expect((await readerView(store)).channels).toEqual([
      {
        id: rte,
        name: 'RTÉ a hAon', // the first display-name
        icon: 'https://img.example/rte1.png', // the first icon
        country: 'IE',
        needsReview: false,
      },
      { id: tg4, name: 'TG4', icon: '', country: 'IE', needsReview: false },
    ]);
    expect(await channelRow('rte1.ie')).toMatchObject({
      name_key: 'rté a haon',
      name_folded: 'rte a haon',
      created_at: NOW,
      updated_at: NOW,
    });
    const common = {
      sourceFileId: summary.sourceFileId,
      updatedAt: String(NOW),
      needsReview: false,
    };
    expect(await store.catalogue.listProgrammes(rte)).toEqual([
      {
        id: programmeIdFor(rte, '20260822180000 +0000'),
        start: '20260822180000 +0000',
        stop: '20260822190000 +0000',
        title: 'Six One & More',
        desc: 'News at six, café culture été and <b>markup</b> as text.',
        category: 'News, Current affairs',
        ...common,
      },
      {
        id: programmeIdFor(rte, '20260822190000 +0000'),
        start: '20260822190000 +0000',
        stop: '20260822193000 +0000',
        title: 'Fair City <live>',
        desc: 'Dublin soap,\n      two lines.',
        category: '',
        ...common,
      },
    ]);
    // Truncated forms are accepted and converted.
    expect(await store.catalogue.listProgrammes(tg4)).toEqual([
      expect.objectContaining({
        start: '20260822193000 +0000',
        stop: '20260822200000 +0000',
        title: 'Nuacht TG4',
        desc: '',
      }),
    ]);
  });

  it('records the source file and returns a summary of what the file holds', async () => {
    const bytes = readFileSync(fixturePath('basic.xml'));
    const progress: [number, number | null][] = [];
    const summary = await ingest(store, fixturePath('basic.xml'), {
      country: 'IE',
      onProgress: (read, total) => progress.push([read, total]),
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(summary).toMatchObject({
      source: fixturePath('basic.xml'),
      country: 'IE',
      encoding: 'utf-8',
      gzip: false,
      bytesRead: bytes.length,
      bytesUncompressed: bytes.length,
      sha256,
      lines: 38,
      channels: 2,
      channelElements: 2,
      repeatedChannelElements: 0,
      channelsWithoutProgrammes: 0,
      undeclaredChannels: 0,
      programmesRead: 3,
      programmesSkipped: 0,
      programmesStored: 3,
      exactDuplicates: 0,
      conflictingDuplicates: 0,
      overlaps: 0,
      missingStop: 0,
      needsReview: 0,
      needsReviewByReason: {
        unparseableStart: 0,
        startBeforeBroadcasts: 0,
        unparseableStop: 0,
        stopNotAfterStart: 0,
      },
      warningCount: 0,
      warnings: [],
      merge: {
        channelsAdded: 2,
        channelsUpdated: 0,
        programmesAdded: 3,
        programmesUpdated: 0,
        programmesUnchanged: 0,
        programmesRemoved: 0,
        programmesPruned: 0,
      },
    });
    expect(summary.sourceFileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(progress.at(-1)).toEqual([bytes.length, bytes.length]);

    const [row] = await temp.sql(`SELECT * FROM source_files WHERE id = '${summary.sourceFileId}'`);
    expect(row).toMatchObject({
      source: fixturePath('basic.xml'),
      country: 'IE',
      size_bytes: bytes.length,
      sha256,
      ingested_at: NOW,
    });
    const stored = JSON.parse(String(row?.['summary'])) as Record<string, unknown>;
    expect(stored).toMatchObject({ programmesRead: 3, programmesStored: 3, warnings: [] });
  });

  it('reads a BOM without declaration, ISO-8859-1 and DTD entities', async () => {
    await ingest(store, fixturePath('bom-no-declaration.xml'));
    await ingest(store, fixturePath('latin1.xml'));
    const entities = await ingest(store, fixturePath('entities-dtd.xml'));
    expect(entities.encoding).toBe('utf-8');
    const names = (await readerView(store)).channels.map((c) => c.name);
    expect(names).toEqual(['Télé Lumière', 'Télé\u00a0Onair & Co', 'BOM Channel – UTF-8']);
    const latin = await store.catalogue.listProgrammes(channelIdFor('latin.fr'));
    expect(latin[0]).toMatchObject({
      start: '20260101110000 +0000',
      title: 'Café crème £½',
      desc: 'Entity é and byte é',
    });
  });

  it('ingests bytes from memory', async () => {
    const data = readFileSync(fixturePath('basic.xml'));
    const summary = await ingest(store, { name: 'basic-in-memory', data });
    expect(summary).toMatchObject({ source: 'basic-in-memory', programmesStored: 3 });
    expect(await store.catalogue.countChannels()).toBe(2);
  });

  // PostgreSQL has no database in memory; SQLite's stages in temp tables of its connection.
  it.runIf(onSqlite)(
    'ingests into a SQLite database in memory, leaving no temp table',
    async () => {
      const memory = openSqliteStore({ path: ':memory:', nowMs: NOW });
      try {
        const data = readFileSync(fixturePath('basic.xml'));
        const summary = await ingest(memory, { name: 'basic-in-memory', data });
        expect(summary).toMatchObject({ source: 'basic-in-memory', programmesStored: 3 });
        expect(await memory.catalogue.countChannels()).toBe(2);
        expect(tempTables(memory)).toEqual([]);
      } finally {
        await memory.close();
      }
    },
  );
});

describe('ingest of a messy guide', () => {
  const text = fixtureText('messy.xml');

  it('counts what the file truly holds', async () => {
    const summary = await ingest(store, fixturePath('messy.xml'));
    expect(summary).toMatchObject({
      channels: 5, // one.uk, two.de, empty.fr, noname and the undeclared ghost.it
      channelElements: 5,
      repeatedChannelElements: 1,
      channelsWithoutProgrammes: 2,
      undeclaredChannels: 1,
      programmesRead: 16,
      programmesSkipped: 1,
      programmesStored: 13,
      exactDuplicates: 1,
      conflictingDuplicates: 1,
      overlaps: 1,
      missingStop: 1,
      needsReview: 4,
      needsReviewByReason: {
        unparseableStart: 1,
        startBeforeBroadcasts: 0,
        unparseableStop: 1,
        stopNotAfterStart: 2,
      },
      warningCount: 9,
    });
    expect(summary.warnings).toEqual([
      {
        line: lineOf(text, '<channel id="noname">'),
        message: expect.stringMatching(/"noname" has no display-name/),
      },
      {
        line: lineOf(text, '<title>News'),
        message: expect.stringMatching(
          /"one.uk" has an identical copy with the same start 20260301090000 \+0000; the last \(line \d+\) is kept/,
        ),
      },
      {
        line: lineOf(text, '<title>Zero length'),
        message:
          'channel "one.uk": stop 20260301120000 +0000 is not after start 20260301120000 +0000; kept for review',
      },
      {
        line: lineOf(text, '<title>Negative'),
        message: expect.stringMatching(/is not after start/),
      },
      {
        line: lineOf(text, '<title>Unparseable start'),
        message: 'channel "one.uk": start "soon" is not an XMLTV time; kept for review',
      },
      {
        line: lineOf(text, '<title>Unparseable stop'),
        message: 'channel "one.uk": stop "later" is not an XMLTV time; kept for review',
      },
      {
        line: lineOf(text, '<title>No stop'),
        message: expect.stringMatching(
          /has a different programme with the same start .*; the last \(line \d+\) is kept/,
        ),
      },
      {
        line: lineOf(text, '<title>Undeclared<'),
        message: expect.stringMatching(/"ghost.it" has programmes but no <channel> element/),
      },
      {
        line: lineOf(text, '<title>No channel'),
        message: '<programme> without a channel attribute; skipped',
      },
    ]);
  });

  it('says it skips a programme or channel inside another element, not directly in <tv>', async () => {
    const text = `<tv>
<channel id="c1.gb"><display-name>C1</display-name></channel>
<weird>
  <programme start="20260301100000 +0000" channel="c1.gb"><title>Hidden</title></programme>
  <channel id="c2.gb"><display-name>C2</display-name></channel>
</weird>
<programme start="20260301110000 +0000" channel="c1.gb"><title>Shown</title></programme>
</tv>`;
    const summary = await ingest(store, { name: 'nested.xml', data: Buffer.from(text) });
    expect(summary).toMatchObject({ channels: 1, programmesRead: 2, programmesSkipped: 1 });
    expect(summary.programmesStored).toBe(1);
    expect(summary.warnings).toEqual([
      {
        line: lineOf(text, '<title>Hidden'),
        message: '<programme> inside <weird>, not directly in <tv>, where XMLTV has them; skipped',
      },
      {
        line: lineOf(text, 'C2'),
        message: '<channel> inside <weird>, not directly in <tv>, where XMLTV has them; skipped',
      },
    ]);
  });

  it('warns of a guide with neither channels nor programmes (a grabber that failed)', async () => {
    for (const text of ['<tv/>', '<?xml version="1.0"?>\n<tv>\n</tv>\n']) {
      const summary = await ingest(store, { name: 'empty.xml', data: Buffer.from(text) });
      expect(summary.warnings).toEqual([
        { line: 1, message: 'the guide holds no <channel> and no <programme>: nothing changed' },
      ]);
    }
    const channelsOnly = await ingest(store, {
      name: 'lineup.xml',
      data: Buffer.from('<tv><channel id="c.gb"><display-name>C</display-name></channel></tv>'),
    });
    expect(channelsOnly.warnings).toEqual([]);
  });

  it('tells a missing start or channel attribute from an empty one', async () => {
    const text = `<tv>
<channel id="c1.gb"><display-name>C1</display-name></channel>
<programme channel="c1.gb"><title>No start</title></programme>
<programme start="" channel="c1.gb"><title>Empty start</title></programme>
<programme start="20260301110000 +0000" channel=""><title>Empty channel</title></programme>
<programme start="20260301120000 +0000"><title>No channel</title></programme>
</tv>`;
    const summary = await ingest(store, { name: 'attributes.xml', data: Buffer.from(text) });
    expect(summary.warnings.map((w) => [w.line, w.message])).toEqual(
      expect.arrayContaining([
        [3, 'channel "c1.gb": <programme> without a start attribute; kept for review'],
        [4, 'channel "c1.gb": start "" is not an XMLTV time; kept for review'],
        [5, '<programme> with an empty channel attribute; skipped'],
        [6, '<programme> without a channel attribute; skipped'],
      ]),
    );
  });

  it('merges repeated channels, keeps channels without programmes, attaches undeclared ones', async () => {
    await ingest(store, fixturePath('messy.xml'));
    const channels = (await readerView(store)).channels;
    expect(
      channels.map(({ name, icon, country, needsReview }) => ({
        name,
        icon,
        country,
        needsReview,
      })),
    ).toEqual([
      { name: 'Zwei', icon: '', country: 'DE', needsReview: true },
      { name: 'Sans Programme', icon: '', country: 'FR', needsReview: true },
      { name: 'ghost.it', icon: '', country: 'IT', needsReview: true },
      {
        name: 'Channel One',
        icon: 'https://img.example/one.png',
        country: 'UK',
        needsReview: true,
      },
      { name: 'noname', icon: 'https://img.example/noname.png', country: 'ZZ', needsReview: true },
    ]);
  });

  it('collapses same starts (later wins), keeps overlaps and flags what needs review', async () => {
    const summary = await ingest(store, fixturePath('messy.xml'));
    const one = await store.catalogue.listProgrammes(channelIdFor('one.uk'));
    expect(one.map((p) => [p.start, p.stop, p.title, p.needsReview])).toEqual([
      ['20260301080000 +0000', '20260301090000 +0000', 'Morning', false],
      ['20260301090000 +0000', '20260301100000 +0000', 'News', false],
      ['20260301100000 +0000', '20260301113000 +0000', 'Film', false],
      ['20260301110000 +0000', '20260301120000 +0000', 'Overlapping', false],
      ['20260301120000 +0000', '20260301120000 +0000', 'Zero length', true],
      ['20260301130000 +0000', '20260301125900 +0000', 'Negative', true],
      ['20260301140000 +0000', 'later', 'Unparseable stop', true],
      ['20260301150000 +0000', '20260301160000 +0000', 'Late show (updated)', false],
      ['soon', '20260301140000 +0000', 'Unparseable start', true], // unparseable starts last
    ]);
    expect(one.at(-1)?.id).toBe(programmeIdFor(channelIdFor('one.uk'), 'soon'));
    expect(one.every((p) => p.sourceFileId === summary.sourceFileId)).toBe(true);
    // Offset-less times are read at the assumed offset (UTC by default).
    const two = await store.catalogue.listProgrammes(channelIdFor('two.de'));
    expect(two.map((p) => p.start)).toEqual(['20260301190000 +0000', '20260301210000 +0000']);
    // A filtered window leaves the unparseable start out.
    const starts = one.flatMap((p) => parseXmltvTime(p.start) ?? []);
    const { from, to } = windowRange(starts, one.length, {
      kind: 'range',
      fromMs: Date.UTC(2026, 2, 1),
    });
    expect(one.slice(from, to).map((p) => p.title)).not.toContain('Unparseable start');
  });

  it('stores a missing stop as an empty string, not flagged by itself', async () => {
    const guide = `<tv><channel id="a.uk"><display-name>A</display-name></channel>
<programme start="20260301150000 +0000" channel="a.uk"><title>Open end</title></programme></tv>`;
    const summary = await ingest(store, { name: 'open-end.xml', data: Buffer.from(guide) });
    expect(summary).toMatchObject({ missingStop: 1, needsReview: 0, warningCount: 0 });
    const [programme] = await store.catalogue.listProgrammes(channelIdFor('a.uk'));
    expect(programme).toMatchObject({ stop: '', needsReview: false });
  });

  it('ends a programme without a stop where the next one of its channel starts, for the guide routes', async () => {
    // Out of order, a repeated slot, another channel between, and a stop that is there but
    // does not parse (that one stays out of the guide, flagged for review).
    const at = (hour: number) => Date.UTC(2026, 2, 1, hour);
    const guide = `<tv><channel id="a.uk"><display-name>A</display-name></channel>
<channel id="b.uk"><display-name>B</display-name></channel>
<programme start="20260301210000 +0000" channel="a.uk"><title>Nine</title></programme>
<programme start="20260301200000 +0000" channel="a.uk"><title>Eight</title></programme>
<programme start="20260301200000 +0000" channel="b.uk"><title>B eight</title></programme>
<programme start="20260301210000 +0000" channel="a.uk"><title>Nine again</title></programme>
<programme start="20260301230000 +0000" channel="a.uk"><title>Eleven</title></programme>
<programme start="20260301193000 +0000" stop="soon" channel="a.uk"><title>Bad stop</title></programme>
<programme start="20260301220000 +0000" stop="20260301230000 +0000" channel="b.uk"><title>B ten</title></programme>
</tv>`;
    const summary = await ingest(store, { name: 'open-ends.xml', data: Buffer.from(guide) });
    expect(summary).toMatchObject({ missingStop: 5, needsReview: 1 });
    const a = channelIdFor('a.uk');
    const b = channelIdFor('b.uk');
    const timed = await store.catalogue.programmesBetween([a, b], at(18), at(24));
    const spans = (id: string) =>
      (timed.get(id) ?? []).map((p) => [p.programme.title, p.startMs, p.stopMs]);
    // The last of a channel has nothing to end at: it stays out, as before.
    expect(spans(a)).toEqual([
      ['Eight', at(20), at(21)],
      ['Nine again', at(21), at(23)],
    ]);
    expect(spans(b)).toEqual([
      ['B eight', at(20), at(22)],
      ['B ten', at(22), at(23)],
    ]);
    // The schedule says what the guide wrote: no stop.
    const listed = await store.catalogue.listProgrammes(a);
    expect(listed.map((p) => [p.title, p.stop])).toEqual([
      ['Bad stop', 'soon'],
      ['Eight', ''],
      ['Nine again', ''],
      ['Eleven', ''],
    ]);
    // The same guide again changes nothing.
    const again = await ingest(store, { name: 'open-ends.xml', data: Buffer.from(guide) });
    expect(again.merge).toMatchObject({ programmesAdded: 0, programmesUpdated: 0 });
  });

  it('ends programmes without a stop of channels in start order as they are staged, across batches', async () => {
    // A guide sorted by time (three channels interleaved), 1,000 slots each (more rows than a
    // staging batch on either engine), no stops but every seventh, and a start that does not
    // parse: each open programme ends where its channel's next starts.
    const at = (minutes: number) => Date.UTC(2026, 2, 1) + minutes * 60_000;
    const time = (ms: number) => {
      const d = new Date(ms);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}00 +0000`;
    };
    const rows: string[] = [];
    const expected = new Map<string, [string, number, number | null][]>();
    for (let i = 0; i < 1_000; i++) {
      for (const [c, length] of [
        ['x.uk', 30],
        ['y.uk', 45],
        ['z.uk', 20],
      ] as const) {
        const start = at(i * length);
        const next = at((i + 1) * length);
        const stop = i % 7 === 0 ? ` stop="${time(next)}"` : '';
        const title = `${c} ${i}`;
        rows.push(
          `<programme start="${time(start)}"${stop} channel="${c}"><title>${title}</title></programme>`,
        );
        if (c === 'z.uk' && i === 700)
          rows.push(`<programme start="soon" channel="${c}"><title>when</title></programme>`);
        const list = expected.get(c) ?? [];
        // The last of each channel, with no stop, has nothing to end at.
        list.push([title, start, i === 999 && i % 7 !== 0 ? null : next]);
        expected.set(c, list);
      }
    }
    const guide = `<tv>
<channel id="x.uk"><display-name>X</display-name></channel>
<channel id="y.uk"><display-name>Y</display-name></channel>
<channel id="z.uk"><display-name>Z</display-name></channel>
${rows.join('\n')}
</tv>`;
    const summary = await ingest(store, { name: 'sorted-open.xml', data: Buffer.from(guide) });
    expect(summary.programmesStored).toBe(3_001);
    for (const [c, list] of expected) {
      const id = channelIdFor(c);
      const timed = (await store.catalogue.programmesBetween([id], at(0), at(1_000 * 60))).get(id);
      const closed = list.filter(([, , stop]) => stop !== null);
      expect((timed ?? []).map((p) => [p.programme.title, p.startMs, p.stopMs])).toEqual(closed);
      // The schedule still says what the guide wrote.
      const listed = await store.catalogue.listProgrammes(id);
      expect(listed.filter((p) => p.stop === '').length).toBeGreaterThan(800);
    }
    const again = await ingest(store, { name: 'sorted-open.xml', data: Buffer.from(guide) });
    expect(again.merge).toMatchObject({ programmesAdded: 0, programmesUpdated: 0 });
  });

  it('counts overlaps in SQL when a channel is not in start order, with the same definition', async () => {
    const summary = await ingest(store, fixturePath('unsorted.xml'));
    expect(summary).toMatchObject({
      programmesRead: 6,
      programmesStored: 4,
      exactDuplicates: 1,
      conflictingDuplicates: 1,
      overlaps: 2, // 09:00 starts before 09:30; 12:20 starts before 12:30
    });
    const mix = await store.catalogue.listProgrammes(channelIdFor('mix.nl'));
    expect(mix.map((p) => p.title)).toEqual(['Eight', 'Nine', 'Noon again', 'Twelve twenty']);
  });

  it('applies --assume-offset to offset-less times only', async () => {
    await ingest(store, fixturePath('messy.xml'), { assumeOffsetMinutes: 480 });
    const two = await store.catalogue.listProgrammes(channelIdFor('two.de'));
    expect(two.map((p) => [p.start, p.stop])).toEqual([
      ['20260301130000 +0000', '20260301140000 +0000'], // 21:00 at +0800
      ['20260301190000 +0000', '20260301200000 +0000'], // explicit +0100 unchanged
    ]);
  });

  it('keeps only the first warnings, by line, and counts them all', async () => {
    const rows = Array.from(
      { length: 150 },
      (_, i) => `<programme start="bad-${i}" channel="w.uk"><title>${i}</title></programme>`,
    );
    const guide = `<tv>\n<channel id="w.uk"><display-name>W</display-name></channel>\n${rows.join('\n')}\n</tv>`;
    const summary = await ingest(store, { name: 'warnings.xml', data: Buffer.from(guide) });
    expect(summary.warningCount).toBe(150);
    expect(summary.warnings).toHaveLength(100);
    expect(summary.warnings[0]).toEqual({
      line: 3,
      message: 'channel "w.uk": start "bad-0" is not an XMLTV time; kept for review',
    });
    expect(summary.warnings.at(-1)?.line).toBe(102);
  });
});

describe('staging', () => {
  it('is invisible to readers until the commit, on either engine', async () => {
    const before: unknown[] = [];
    // The store's writer, but reading the catalogue the moment before it commits.
    const watched: CatalogueWriter = {
      async beginIngest() {
        const session = await store.ingest.beginIngest();
        return {
          stageChannel: (channel) => session.stageChannel(channel),
          stageProgramme: (programme) => session.stageProgramme(programme),
          drain: () => session.drain(),
          analyse: (options) => session.analyse(options),
          async commit(file, options) {
            const [row] = await temp.sql('SELECT count(*) AS n FROM programmes');
            before.push(await store.catalogue.countChannels(), row?.['n']);
            return session.commit(file, options);
          },
          abort: () => session.abort(),
        };
      },
    };
    const guide = Buffer.from(syntheticGuide(5, 40));
    const summary = await ingest({ ingest: watched }, { name: 'staged.xml', data: guide });
    expect(before).toEqual([0, 0]);
    expect(summary.programmesStored).toBe(200);
    expect(await store.catalogue.countChannels()).toBe(5);
  });

  // SQLite's staging (off the connection, in a worker) and its single write lock; a
  // PostgreSQL ingest stages on a connection of its own inside one transaction.
  it.runIf(onSqlite)(
    'is invisible to readers and takes no write lock until the commit',
    async () => {
      const { store } = sqliteTemp();
      const guide = Buffer.from(syntheticGuide(20, 100, 400)); // about 1 MB: several chunks
      let checks = 0;
      const summary = await ingest(
        store,
        { name: 'big.xml', data: guide },
        {
          onProgress: () => {
            expect(store.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(0);
            // A writer on the store's connection is not blocked by the ingest.
            store.db.exec('BEGIN IMMEDIATE; ROLLBACK');
            checks++;
          },
        },
      );
      expect(checks).toBeGreaterThan(3);
      expect(summary.programmesStored).toBe(2000);
      expect(store.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(2000);
    },
  );

  it('collapses many repeats, next to each other or far apart, as one copy of the guide', async () => {
    const once = syntheticGuide(3, 200, 20);
    const body = once.slice(once.indexOf('<programme'), once.lastIndexOf('</tv>'));
    const programmes = body.split('\n').filter((line) => line !== '');
    const head = once.slice(0, once.indexOf('<programme'));
    const side = `${head}${programmes.flatMap((p) => [p, p]).join('\n')}\n</tv>\n`;
    const apart = `${head}${body}${body}</tv>\n`;
    const reference = await ingest(store, { name: 'once.xml', data: Buffer.from(once) });
    // Programmes as the API shows them, but for the id of the ingest that stored them.
    const withoutSource = async (s: Store) => {
      const { channels, programmes } = await readerView(s);
      const stripped = Object.values(programmes).map((list) =>
        list.map(({ sourceFileId: _, ...rest }) => rest),
      );
      return { channels, stripped };
    };
    const view = await withoutSource(store);
    const guides: [string, string][] = [
      ['side.xml', side],
      ['apart.xml', apart],
    ];
    for (const [name, guide] of guides) {
      const other = await openEngineStore(TEST_ENGINE, NOW);
      try {
        const summary = await ingest(other.store, { name, data: Buffer.from(guide) });
        expect(summary, name).toMatchObject({
          programmesRead: 1200,
          programmesStored: reference.programmesStored,
          exactDuplicates: 600,
          conflictingDuplicates: 0,
          warningCount: 600,
        });
        expect(summary.warnings[0]?.message, name).toMatch(
          /has an identical copy with the same start/,
        );
        expect(await withoutSource(other.store), name).toEqual(view);
      } finally {
        await other.dispose();
      }
    }
  });

  // The worker thread is SQLite's alone.
  it.runIf(onSqlite)('gives the same catalogue staging in a worker or in this thread', async () => {
    const { store } = sqliteTemp();
    const { createSqliteCatalogueWriter } =
      await import('../../src/storage/sqlite/ingest-session.js');
    const { ingestXmltv } = await import('../../src/catalogue/ingest/ingest-xmltv.js');
    const other = openTempStore(NOW);
    try {
      const inThread = createSqliteCatalogueWriter(other.store.db, other.path, {
        staging: 'in-thread',
      });
      for (const name of ['messy.xml', 'unsorted.xml', 'basic.xml']) {
        const a = await ingest(store, fixturePath(name));
        const b = await ingestXmltv(
          inThread,
          { source: fixturePath(name) },
          {
            country: null,
            assumeOffsetMinutes: 0,
            nowMs: NOW,
          },
        );
        const strip = ({ sourceFileId: _, durationMs: __, mergeMs: ___, ...rest }: typeof a) =>
          rest;
        expect(strip(b)).toEqual(strip(a));
      }
      const view = (s: SqliteStore) =>
        s.db
          .prepare(
            'SELECT id, channel_id, start, stop, title, needs_review FROM programmes ORDER BY id',
          )
          .all();
      expect(view(other.store)).toEqual(view(store));
    } finally {
      await other.dispose();
    }
  });
});
