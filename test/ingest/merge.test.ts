import { beforeEach, describe, expect, it } from 'vitest';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { programmeIdFor } from '../../src/domain/programme-id.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_ENGINE, storeForEachTest, type EngineStore } from '../helpers/engines.js';
import { NOW, fixturePath, ingest, tableSnapshot } from './ingest-helpers.js';

// The merge rules hold on both engines: each vitest project runs this file on its own.
const freshStore = storeForEachTest(TEST_ENGINE, NOW);
let temp: EngineStore;
let store: Store;

beforeEach(() => {
  temp = freshStore();
  store = temp.store;
});

interface Slot {
  channel: string;
  /** Day of March 2026 and hour, UTC. */
  day: number;
  hour: number;
  title: string;
  /** Raw start text instead of the computed one. */
  rawStart?: string;
}

function guide(channels: string[], slots: Slot[]): Buffer {
  const time = (day: number, hour: number) =>
    `202603${String(day).padStart(2, '0')}${String(hour).padStart(2, '0')}0000 +0000`;
  const body = [
    ...channels.map((c) => `<channel id="${c}"><display-name>${c}</display-name></channel>`),
    ...slots.map(
      (s) =>
        `<programme start="${s.rawStart ?? time(s.day, s.hour)}" stop="${time(s.day, s.hour + 1)}" channel="${s.channel}"><title>${s.title}</title></programme>`,
    ),
  ];
  return Buffer.from(`<tv>\n${body.join('\n')}\n</tv>\n`);
}

const titles = async (xmltvId: string) =>
  (await store.catalogue.listProgrammes(channelIdFor(xmltvId))).map(
    (p) => `${p.start.slice(6, 10)} ${p.title}`,
  );

describe('re-ingesting the same file', () => {
  it('changes nothing: same ids, same updatedAt and sourceFileId', async () => {
    for (const name of ['basic.xml', 'messy.xml', 'unsorted.xml']) {
      await ingest(store, fixturePath(name), { nowMs: NOW });
    }
    const before = await tableSnapshot(temp);
    for (const name of ['basic.xml', 'messy.xml', 'unsorted.xml']) {
      const again = await ingest(store, fixturePath(name), { nowMs: NOW + 86_400_000 });
      expect(again.merge).toEqual({
        channelsAdded: 0,
        channelsUpdated: 0,
        programmesAdded: 0,
        programmesUpdated: 0,
        programmesUnchanged: again.programmesStored,
        programmesRemoved: 0,
        programmesPruned: 0,
      });
    }
    const after = await tableSnapshot(temp);
    expect(after.channels).toEqual(before.channels);
    expect(after.programmes).toEqual(before.programmes);
    // Only the ingest records grow: one per file or fetch.
    expect(after.sourceFiles).toHaveLength(before.sourceFiles.length + 3);
  });
});

describe('merging a second file', () => {
  const first = guide(
    ['x.uk', 'y.uk'],
    [
      ...[1, 2, 3].flatMap((day) => [
        { channel: 'x.uk', day, hour: 8, title: `X morning ${day}` },
        { channel: 'x.uk', day, hour: 20, title: `X evening ${day}` },
        { channel: 'y.uk', day, hour: 8, title: `Y morning ${day}` },
      ]),
      { channel: 'x.uk', day: 1, hour: 0, title: 'X unparseable', rawStart: 'sometime' },
      { channel: 'y.uk', day: 1, hour: 0, title: 'Y unparseable', rawStart: 'sometime' },
    ],
  );
  // Channel x only, from day 2 morning: day 2 evening changes, day 3 evening disappears, day 4 is new.
  const second = guide(
    ['x.uk'],
    [
      { channel: 'x.uk', day: 2, hour: 8, title: 'X morning 2' },
      { channel: 'x.uk', day: 2, hour: 20, title: 'X evening 2 (new title)' },
      { channel: 'x.uk', day: 3, hour: 8, title: 'X morning 3' },
      { channel: 'x.uk', day: 4, hour: 8, title: 'X morning 4' },
    ],
  );

  it("replaces a channel's programmes from the file's earliest start, keeps older history, leaves other channels alone", async () => {
    const a = await ingest(store, { name: 'a.xml', data: first }, { nowMs: NOW });
    const yBefore = await store.catalogue.listProgrammes(channelIdFor('y.uk'));
    const b = await ingest(store, { name: 'b.xml', data: second }, { nowMs: NOW + 1000 });

    expect(await titles('x.uk')).toEqual([
      '0108 X morning 1', // before the file's earliest start: history kept
      '0120 X evening 1',
      '0208 X morning 2',
      '0220 X evening 2 (new title)',
      '0308 X morning 3',
      '0408 X morning 4',
      // 'X evening 3' (not in the file) and the unparseable start of x are gone
    ]);
    expect(await store.catalogue.listProgrammes(channelIdFor('y.uk'))).toEqual(yBefore);
    expect(b.merge).toEqual({
      channelsAdded: 0,
      channelsUpdated: 0,
      programmesAdded: 1,
      programmesUpdated: 1,
      programmesUnchanged: 2,
      programmesRemoved: 2,
      programmesPruned: 0,
    });

    const x = await store.catalogue.listProgrammes(channelIdFor('x.uk'));
    const byTitle = new Map(x.map((p) => [p.title, p]));
    // Unchanged programmes keep the ingest that last changed them.
    expect(byTitle.get('X morning 2')).toMatchObject({
      sourceFileId: a.sourceFileId,
      updatedAt: String(NOW),
    });
    expect(byTitle.get('X evening 2 (new title)')).toMatchObject({
      sourceFileId: b.sourceFileId,
      updatedAt: String(NOW + 1000),
    });
    expect(byTitle.get('X morning 4')).toMatchObject({ sourceFileId: b.sourceFileId });
  });

  it('prunes programmes older than the retention period', async () => {
    await ingest(store, { name: 'a.xml', data: first }, { nowMs: NOW });
    const later = Date.UTC(2026, 2, 3, 0, 0, 0) + 366 * 86_400_000; // day 3 is 366 days old
    const summary = await ingest(
      store,
      { name: 'b.xml', data: second },
      {
        nowMs: later,
        retentionDays: 366,
      },
    );
    // Days 1 and 2 of both channels go (4 of x, 2 of y); unparseable starts have no age and stay.
    expect(summary.merge.programmesPruned).toBe(6);
    expect(await titles('x.uk')).toEqual(['0308 X morning 3', '0408 X morning 4']);
    expect(await titles('y.uk')).toEqual(['0308 Y morning 3', 'me Y unparseable']);
  });
});

describe('an id already stored for another channel', () => {
  const slot = { channel: 'new.uk', day: 1, hour: 9, title: 'New' };
  const later = { channel: 'new.uk', day: 1, hour: 10, title: 'Next' };

  /** Stores `stored`, then gives the X programme the id the file's 09:00 programme will have. */
  async function clash(stored: Slot[]) {
    await ingest(store, {
      name: 'a.xml',
      data: guide(
        ['x.uk', 'new.uk'],
        [{ channel: 'x.uk', day: 1, hour: 8, title: 'X' }, ...stored],
      ),
    });
    // Ids are 63 bits of a hash, so such a clash does not happen by chance: made by hand.
    const id = programmeIdFor(channelIdFor('new.uk'), '20260301090000 +0000');
    await temp.sql(`UPDATE programmes SET id = '${id}' WHERE title = 'X'`);
    return ingest(
      store,
      { name: 'b.xml', data: guide(['new.uk'], [slot, later]) },
      { nowMs: NOW + 1000 },
    );
  }

  // Programmes are keyed by slot (channel, start): the other channel's programme is its own.
  it("stays with its channel when the file's channel has nothing stored (a plain insert)", async () => {
    const b = await clash([]);
    expect(b.merge).toMatchObject({
      programmesAdded: 2,
      programmesUpdated: 0,
      programmesUnchanged: 0,
      programmesRemoved: 0,
    });
    expect(await titles('new.uk')).toEqual(['0109 New', '0110 Next']);
    expect(await titles('x.uk')).toEqual(['0108 X']);
  });

  it('stays with its channel when the file replaces stored programmes (an upsert)', async () => {
    const b = await clash([later]);
    expect(b.merge).toMatchObject({
      programmesAdded: 1,
      programmesUpdated: 0,
      programmesUnchanged: 1,
      programmesRemoved: 0,
    });
    expect(await titles('new.uk')).toEqual(['0109 New', '0110 Next']);
    expect(await titles('x.uk')).toEqual(['0108 X']);
  });
});

describe('a start that does not parse', () => {
  const file = (title: string) =>
    guide(
      ['x.uk'],
      [
        { channel: 'x.uk', day: 1, hour: 8, title: 'Morning' },
        { channel: 'x.uk', day: 1, hour: 0, title, rawStart: 'sometime' },
      ],
    );

  it('keeps one programme for its slot: unchanged on re-ingest, updated in place when it changes', async () => {
    await ingest(store, { name: 'a.xml', data: file('Unparsed') }, { nowMs: NOW });
    const same = await ingest(
      store,
      { name: 'a.xml', data: file('Unparsed') },
      { nowMs: NOW + 1000 },
    );
    expect(same.merge).toMatchObject({
      programmesAdded: 0,
      programmesUpdated: 0,
      programmesUnchanged: 2,
    });
    const changed = await ingest(
      store,
      { name: 'b.xml', data: file('Renamed') },
      { nowMs: NOW + 2000 },
    );
    expect(changed.merge).toMatchObject({
      programmesAdded: 0,
      programmesUpdated: 1,
      programmesUnchanged: 1,
      programmesRemoved: 0,
    });
    expect(await titles('x.uk')).toEqual(['0108 Morning', 'me Renamed']);
  });
});

describe("a start before 1990 (a grabber's epoch-0 glitch)", () => {
  const history = guide(
    ['x.uk'],
    [1, 2, 3].map((day) => ({ channel: 'x.uk', day, hour: 8, title: `Morning ${day}` })),
  );

  it("is kept for review and does not take the channel's stored programmes with it", async () => {
    await ingest(store, { name: 'history.xml', data: history }, { nowMs: NOW });
    const glitch = guide(
      ['x.uk'],
      [
        { channel: 'x.uk', day: 1, hour: 0, title: 'Epoch', rawStart: '19700101000000 +0000' },
        { channel: 'x.uk', day: 3, hour: 8, title: 'Morning 3 again' },
      ],
    );
    const summary = await ingest(store, { name: 'glitch.xml', data: glitch }, { nowMs: NOW });
    // Replaced from the file's other start (day 3) only: days 1 and 2 stay.
    expect(summary.merge).toMatchObject({ programmesAdded: 1, programmesRemoved: 0 });
    expect(summary.needsReviewByReason.startBeforeBroadcasts).toBe(1);
    expect(summary.warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(/^channel "x\.uk": start 19700101000000 \+0000 is before 1990/),
    );
    const stored = await store.catalogue.listProgrammes(channelIdFor('x.uk'));
    expect(stored.map((p) => [p.title, p.needsReview])).toEqual([
      ['Morning 1', false],
      ['Morning 2', false],
      ['Morning 3 again', false],
      ['Epoch', true],
    ]);
  });
});

describe('channel countries', () => {
  const channels = guide(
    ['bbc1.uk', 'plain', 'zdf.de@HD'],
    [{ channel: 'bbc1.uk', day: 1, hour: 8, title: 'News' }],
  );
  const country = async (xmltvId: string) => {
    const [row] = await temp.sql(
      `SELECT country, needs_review FROM channels WHERE xmltv_id = '${xmltvId}'`,
    );
    return [row?.['country'], row?.['needs_review'] === 1];
  };

  it('uses --country when given, for every channel, not flagged for review', async () => {
    await ingest(store, { name: 'c.xml', data: channels }, { country: 'GB' });
    expect(await country('bbc1.uk')).toEqual(['GB', false]);
    expect(await country('plain')).toEqual(['GB', false]);
  });

  it('otherwise infers it from the id, or ZZ, flagged for review', async () => {
    await ingest(store, { name: 'c.xml', data: channels });
    expect(await country('bbc1.uk')).toEqual(['UK', true]);
    expect(await country('plain')).toEqual(['ZZ', true]);
    expect(await country('zdf.de@HD')).toEqual(['DE', true]);
  });

  it('keeps an existing channel’s country without --country', async () => {
    await ingest(store, { name: 'c.xml', data: channels }, { country: 'IE' });
    const stats = await ingest(store, { name: 'c.xml', data: channels }, { nowMs: NOW + 1 });
    expect(await country('bbc1.uk')).toEqual(['IE', false]);
    expect(await country('plain')).toEqual(['IE', false]);
    expect(stats.merge.channelsUpdated).toBe(0);
  });

  it('lets --country override a stored, flagged country', async () => {
    await ingest(store, { name: 'c.xml', data: channels });
    await ingest(store, { name: 'c.xml', data: channels }, { country: 'GB', nowMs: NOW + 1 });
    const rows = await temp.sql(
      `SELECT country, needs_review, updated_at FROM channels WHERE xmltv_id = 'plain'`,
    );
    expect(rows).toEqual([{ country: 'GB', needs_review: 0, updated_at: NOW + 1 }]);
  });

  it('renames a channel from its <channel> element, but never from an undeclared reference', async () => {
    await ingest(store, { name: 'c.xml', data: channels });
    const renamed = Buffer.from(
      channels
        .toString()
        .replace(
          '<display-name>bbc1.uk</display-name>',
          '<display-name>BBC One</display-name><icon src="https://img.example/bbc1.png"/>',
        ),
    );
    const r = await ingest(store, { name: 'r.xml', data: renamed }, { nowMs: NOW + 1 });
    expect(r.merge.channelsUpdated).toBe(1);
    const undeclared = Buffer.from(
      '<tv><programme start="20260301080000 +0000" channel="bbc1.uk"><title>News</title></programme></tv>',
    );
    const u = await ingest(store, { name: 'u.xml', data: undeclared }, { nowMs: NOW + 2 });
    expect(u).toMatchObject({
      undeclaredChannels: 1,
      merge: expect.objectContaining({ channelsUpdated: 0 }),
    });
    const [channel] = await store.catalogue.listChannels('UK');
    expect(channel).toMatchObject({ name: 'BBC One', icon: 'https://img.example/bbc1.png' });
  });
});
