import fastJson from 'fast-json-stringify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../domain/catalogue-ids.js';
import type { Programme } from '../../domain/programme.js';
import type { ScheduleWindow } from '../../domain/schedule-window.js';
import { parseXmltvTime } from '../../domain/xmltv-time.js';
import { openTempStore, type TempStore } from '../../../test/helpers/temp-store.js';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { ProgrammesResponse } from '../schemas.js';
import { createScheduleCache, type ScheduleCache } from './schedule-cache.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const H = 3_600_000;
let temp: TempStore;

function guide(titles: string[], extra = ''): Buffer {
  const t = (h: number) => {
    const d = new Date(Date.UTC(2026, 2, 1, h));
    return `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
  };
  const rows = titles.map(
    (title, i) =>
      `<programme start="${t(i * 2)}" stop="${t(i * 2 + 1)}" channel="c.uk"><title>${title}</title><desc>“quotes” \\ back\\slash &amp; é 😀 &#9;tab</desc></programme>`,
  );
  return Buffer.from(
    `<tv><channel id="c.uk"><display-name>C</display-name></channel>${rows.join('')}${extra}</tv>`,
  );
}

const ingest = (store: { ingest: TempStore['store']['ingest'] }, data: Buffer, nowMs = NOW) =>
  ingestXmltv(
    store.ingest,
    { name: 'g.xml', data },
    { country: 'UK', assumeOffsetMinutes: 0, nowMs },
  );

beforeEach(() => {
  temp = openTempStore(NOW);
});

/** The cache's answer at the store's current catalogue version, as text and tag. */
async function read(cache: ScheduleCache, channelId: string, window: ScheduleWindow) {
  const { catalogue } = await temp.store.versions();
  const body = await cache.body(channelId, window, catalogue);
  if (body === null) return null;
  const bytes = Buffer.isBuffer(body.body) ? body.body : Buffer.concat(body.body);
  return { text: bytes.toString(), tag: body.tag, inParts: !Buffer.isBuffer(body.body) };
}
/** The spec's filter rules applied one programme at a time: the oracle for the cache's slices. */
function naiveWindow(programmes: Programme[], window: ScheduleWindow): Programme[] {
  if (window.kind === 'all') return programmes;
  return programmes.filter((p) => {
    const ms = parseXmltvTime(p.start);
    return ms !== null && ms >= window.fromMs && (window.toMs === undefined || ms < window.toMs);
  });
}

afterEach(async () => {
  await temp.dispose();
});

describe('schedule cache', () => {
  it('gives exactly the bytes the response schema serialiser gives, for every window', async () => {
    await ingest(
      temp.store,
      guide(
        ['A "one"', 'B &lt;two&gt;', 'C', 'D'],
        '<programme start="soon" channel="c.uk"><title>Z</title></programme>',
      ),
    );
    const cache = createScheduleCache(temp.store.catalogue);
    const serialise = fastJson(ProgrammesResponse as object);
    const id = channelIdFor('c.uk');
    const windows: ScheduleWindow[] = [
      { kind: 'all' },
      { kind: 'range', fromMs: NOW - 12 * H },
      { kind: 'range', fromMs: Date.UTC(2026, 2, 1, 2) },
      { kind: 'range', fromMs: Date.UTC(2026, 2, 1, 2), toMs: Date.UTC(2026, 2, 1, 4) },
      { kind: 'range', fromMs: Date.UTC(2026, 2, 1, 2, 0, 0, 1), toMs: Date.UTC(2026, 2, 1, 6) },
      { kind: 'range', fromMs: NOW + 100 * H },
    ];
    for (const window of windows) {
      const expected = serialise({
        channelId: id,
        programmes: naiveWindow(await temp.store.catalogue.listProgrammes(id), window),
      });
      expect((await read(cache, id, window))?.text, JSON.stringify(window)).toBe(expected);
    }
    const all = JSON.parse((await read(cache, id, { kind: 'all' }))?.text ?? '{}');
    expect(all.programmes.map((p: { title: string }) => p.title)).toEqual([
      'A "one"',
      'B <two>',
      'C',
      'D',
      'Z',
    ]);
    expect(await read(cache, channelIdFor('missing'), { kind: 'all' })).toBeNull();
  });

  it('sees an ingest committed by another connection at the next request', async () => {
    await ingest(temp.store, guide(['Old']));
    const cache = createScheduleCache(temp.store.catalogue);
    const id = channelIdFor('c.uk');
    const before = await read(cache, id, { kind: 'all' });
    expect(before?.text).toContain('Old');
    // A second process (the CLI) ingests into the same file.
    const other = openSqliteStore({ path: temp.path, nowMs: NOW });
    await ingest(other, guide(['New']), NOW + H);
    await other.close();
    const after = await read(cache, id, { kind: 'all' });
    expect(after?.text).toContain('New');
    expect(after?.text).not.toContain('Old');
    expect(after?.tag).not.toBe(before?.tag);
  });

  it('hands a body of 1 MiB or more over in parts of the cached buffer, not copied', async () => {
    const titles = Array.from({ length: 4000 }, (_, i) => `Programme ${i} ${'x'.repeat(300)}`);
    await ingest(temp.store, guide(titles));
    const cache = createScheduleCache(temp.store.catalogue);
    const id = channelIdFor('c.uk');
    const serialise = fastJson(ProgrammesResponse as object);
    const expected = serialise({
      channelId: id,
      programmes: await temp.store.catalogue.listProgrammes(id),
    });
    expect(expected.length).toBeGreaterThan(1024 * 1024);
    const all = await read(cache, id, { kind: 'all' });
    expect(all?.inParts).toBe(true);
    expect(all?.text).toBe(expected);
    // A small window of the same channel is one ready buffer.
    const day = await read(cache, id, {
      kind: 'range',
      fromMs: Date.UTC(2026, 2, 1),
      toMs: Date.UTC(2026, 2, 2),
    });
    expect(day?.inParts).toBe(false);
    expect(JSON.parse(day?.text ?? '{}').programmes).toHaveLength(12);
  });

  it('peeks at what body() has kept, without reading or building anything', async () => {
    await ingest(temp.store, guide(['A', 'B', 'C']));
    const cache = createScheduleCache(temp.store.catalogue);
    const id = channelIdFor('c.uk');
    const { catalogue: version } = await temp.store.versions();
    const day: ScheduleWindow = { kind: 'range', fromMs: Date.UTC(2026, 2, 1), toMs: NOW };
    expect(cache.peek(id, day, version)).toBeUndefined();
    const body = await cache.body(id, day, version);
    expect(cache.peek(id, day, version)).toBe(body);
    // The schedule is kept, but this window has not been joined yet: the route joins it.
    const later: ScheduleWindow = { kind: 'range', fromMs: Date.UTC(2026, 2, 1, 2) };
    expect(cache.peek(id, later, version)).toBeUndefined();
    const joined = await cache.body(id, later, version);
    expect(cache.peek(id, later, version)?.tag).toBe(joined?.tag);
    expect(joined?.tag).not.toBe(body?.tag);
    // Another catalogue version, and a channel that does not exist, are never peeked at.
    expect(cache.peek(id, day, `${version}x`)).toBeUndefined();
    expect(await cache.body(channelIdFor('missing'), day, version)).toBeNull();
    expect(cache.peek(channelIdFor('missing'), day, version)).toBeUndefined();
  });

  it('keeps tags stable while nothing changes, and evicts by bytes', async () => {
    await ingest(temp.store, guide(['A', 'B']));
    const cache = createScheduleCache(temp.store.catalogue, 1);
    const id = channelIdFor('c.uk');
    const a = await read(cache, id, { kind: 'range', fromMs: NOW - 24 * H });
    const b = await read(cache, id, { kind: 'range', fromMs: NOW - 24 * H });
    expect(a?.tag).toBe(b?.tag);
    expect(
      (await read(cache, id, { kind: 'range', fromMs: Date.UTC(2026, 2, 1, 1) }))?.tag,
    ).not.toBe(a?.tag);
    await read(cache, channelIdFor('other'), { kind: 'all' });
    expect(cache.bytes).toBeLessThan(200); // only the last entry is kept at a 1-byte budget
  });
});
