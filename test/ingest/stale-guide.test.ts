import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scheduleNote } from '../../src/cli/commands/ingest-command.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { scheduleStatus } from '../../src/domain/source-health.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import { NOW, fixturePath, ingest } from './ingest-helpers.js';

let temp: TempStore;
beforeEach(() => {
  temp = openTempStore(NOW);
});
afterEach(async () => {
  await temp.dispose();
});

describe('where a guide’s schedule ends', () => {
  it('is the latest start or stop of any programme, whatever their order or review state', async () => {
    const summary = await ingest(temp.store, fixturePath('messy.xml'));
    // messy.xml: the latest time is the 16:00 stop of "Late show (updated)"; the 21:00 +0100
    // and offset-less 22:00 of two.de are 20:00 and 22:00 UTC.
    expect(summary.latestEndMs).toBe(Date.UTC(2026, 2, 1, 22));
    const empty = await ingest(temp.store, {
      name: 'empty.xml',
      data: Buffer.from('<tv><channel id="a.uk"><display-name>A</display-name></channel></tv>'),
    });
    expect(empty.latestEndMs).toBeNull();
    expect(scheduleNote(empty, NOW)).toBe('stale: the guide has no programme times');
  });

  it('a guide entirely in the past still ingests, as history, and is reported stale', async () => {
    const old = Buffer.from(`<tv>
<channel id="old.de"><display-name>Old</display-name></channel>
<programme start="20220724173000 +0000" stop="20220724190000 +0000" channel="old.de"><title>Then</title></programme>
<programme start="20220724190000 +0000" stop="20220724200000 +0000" channel="old.de"><title>Later then</title></programme>
</tv>`);
    const summary = await ingest(temp.store, { name: 'old.xml', data: old }, { country: 'DE' });
    expect(summary.merge).toMatchObject({ channelsAdded: 1, programmesAdded: 2 });
    expect(summary.latestEndMs).toBe(Date.UTC(2022, 6, 24, 20));
    expect(scheduleStatus(summary.latestEndMs, NOW)).toBe('ended');
    expect(scheduleNote(summary, NOW)).toBe(
      'stale: every programme ended by 2022-07-24T20:00:00.000Z; kept as history',
    );
    const kept = await temp.store.catalogue.listProgrammes(channelIdFor('old.de'));
    expect(kept.map((p) => p.title)).toEqual(['Then', 'Later then']);
    // A guide reaching beyond the next day is not stale.
    expect(scheduleNote({ ...summary, latestEndMs: NOW + 2 * 86_400_000 }, NOW)).toBeNull();
  });
});
