import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DownloadLimits } from '../../src/catalogue/ingest/guide-download.js';
import { refreshSource, type RefreshDeps } from '../../src/sources/source-refresh.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import type { Source } from '../../src/domain/source.js';
import type { Store } from '../../src/storage/store.js';
import { ENGINES, openEngineStore, type EngineStore } from '../helpers/engines.js';
import { conditionalGuide, startGuideServer, type GuideServer } from '../helpers/guide-server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 2, 1, 6);
const LIMITS: DownloadLimits = {
  timeoutMs: 5_000,
  idleTimeoutMs: 2_000,
  maxBytes: 1024 * 1024,
  attempts: 2,
  retryDelayMs: 20,
};

/** A guide of two channels; times without offset, `days` days of hourly programmes from NOW. */
function guide(title: string, startMs = NOW, hours = 48): Buffer {
  const t = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const programmes: string[] = [];
  for (const channel of ['one.ie', 'two.ie']) {
    for (let h = 0; h < hours; h++) {
      const start = startMs + h * HOUR;
      programmes.push(
        `<programme start="${t(start)}" stop="${t(start + HOUR)}" channel="${channel}"><title>${title} ${h}</title></programme>`,
      );
    }
  }
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<tv>
<channel id="one.ie"><display-name>One</display-name></channel>
<channel id="two.ie"><display-name>Two</display-name></channel>
<channel id="three.ie"><display-name>Three, no programmes</display-name></channel>
${programmes.join('\n')}
</tv>
`);
}

describe.each(ENGINES)('refreshing a source: %s', (engine) => {
  let s: EngineStore;
  let store: Store;
  let server: GuideServer;
  let clock: number;
  let logs: { level: string; message: string; details: object }[];
  let deps: RefreshDeps;

  beforeAll(async () => {
    server = await startGuideServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    s = await openEngineStore(engine, NOW);
    store = s.store;
    clock = NOW;
    logs = [];
    const log = (level: string) => (details: object, message: string) =>
      logs.push({ level, message, details });
    deps = {
      store,
      now: () => clock,
      log: { info: log('info'), warn: log('warn'), error: log('error') },
      limits: LIMITS,
      retentionDays: null,
      changesRetentionDays: null,
      holder: 'test-holder',
    };
  });
  afterEach(async () => {
    await s.dispose();
  });

  const add = (path: string, fields: Partial<Source> = {}) =>
    store.sources.addSource(
      {
        location: `${server.base}${path}`,
        country: 'IE',
        everyMs: fields.everyMs ?? 6 * HOUR,
        assumeOffsetMinutes: fields.assumeOffsetMinutes ?? 60,
      },
      clock,
    );
  const sourceFiles = async () =>
    Number((await s.sql('SELECT count(*) AS n FROM source_files'))[0]?.['n']);
  const programmes = async (xmltvId = 'one.ie') =>
    store.catalogue.listProgrammes(channelIdFor(xmltvId));

  it('ingests a new guide with the source’s country and offset, then skips it while unchanged', async () => {
    let body = guide('Show');
    let etag = '"v1"';
    server.on(
      `/${engine}/ie.xml`,
      conditionalGuide(() => ({ body, etag, lastModified: 'Sun, 01 Mar 2026 05:00:00 GMT' })),
    );
    const source = await add(`/${engine}/ie.xml`);
    clock += 1_000;
    const first = await refreshSource(deps, source.id, { force: false });
    expect(first).toMatchObject({ outcome: 'ingested', status: 200, error: null, flags: [] });
    expect(first.summary).toMatchObject({ channels: 3, programmesStored: 96 });
    // The log line says where the time went: the download, the ingest, its merge.
    const refreshed = logs.find((l) => l.message === 'source refreshed: ingested');
    expect(refreshed?.details).toMatchObject({
      ingestMs: first.summary?.durationMs,
      mergeMs: first.summary?.mergeMs,
    });
    expect(first.source).toMatchObject({
      lastAttemptAt: NOW + 1_000,
      lastSuccessAt: NOW + 1_000,
      lastIngestAt: NOW + 1_000,
      lastStatus: 200,
      lastOutcome: 'ingested',
      etag: '"v1"',
      lastModified: 'Sun, 01 Mar 2026 05:00:00 GMT',
      channels: 3,
      programmes: 96,
      // 48 hours from 06:00 local (+01:00), i.e. 05:00 UTC.
      latestEndMs: NOW - HOUR + 48 * HOUR,
      sourceFileId: first.summary?.sourceFileId,
      nextRunAt: NOW + 1_000 + 6 * HOUR,
      failures: 0,
      leaseHolder: null,
    });
    const [opening] = await programmes();
    expect(opening).toMatchObject({
      start: '20260301050000 +0000',
      title: 'Show 0',
      sourceFileId: first.summary?.sourceFileId,
    });
    expect((await store.catalogue.listChannels('IE')).map((c) => c.name)).toEqual([
      'One',
      'Three, no programmes',
      'Two',
    ]);
    // The ingest record names the URL, not the temporary file it was read from.
    expect(await s.sql('SELECT source FROM source_files')).toEqual([
      { source: `${server.base}/${engine}/ie.xml` },
    ]);

    // Not due yet: a scheduled run does nothing and asks nothing.
    const asked = server.seen(`/${engine}/ie.xml`).length;
    expect((await refreshSource(deps, source.id, { force: false })).outcome).toBe('not-due');
    expect(server.seen(`/${engine}/ie.xml`)).toHaveLength(asked);

    // Due again: a conditional GET, answered 304, re-ingests nothing.
    clock += 6 * HOUR + 1_000;
    const before = await programmes();
    const second = await refreshSource(deps, source.id, { force: false });
    expect(second).toMatchObject({ outcome: 'not-modified', status: 304, summary: null });
    expect(server.seen(`/${engine}/ie.xml`).at(-1)).toMatchObject({ ifNoneMatch: '"v1"' });
    expect(second.source).toMatchObject({
      lastSuccessAt: clock,
      lastIngestAt: NOW + 1_000,
      lastOutcome: 'not-modified',
      lastStatus: 304,
    });
    expect(await programmes()).toEqual(before);
    expect(await sourceFiles()).toBe(1);

    // A changed guide is ingested; its programmes replace the old ones.
    body = guide('Changed');
    etag = '"v2"';
    const third = await refreshSource(deps, source.id, { force: true });
    expect(third).toMatchObject({ outcome: 'ingested', status: 200 });
    expect(third.source).toMatchObject({ etag: '"v2"', lastIngestAt: clock });
    expect((await programmes())[0]?.title).toBe('Changed 0');
    expect(await sourceFiles()).toBe(2);
  });

  it('does not re-ingest the same bytes from a server without conditional GET', async () => {
    server.on(`/${engine}/plain.xml`, (_req, res) => res.end(guide('Same')));
    const source = await add(`/${engine}/plain.xml`);
    expect((await refreshSource(deps, source.id, { force: true })).outcome).toBe('ingested');
    clock += 1_000;
    const again = await refreshSource(deps, source.id, { force: true });
    expect(again).toMatchObject({ outcome: 'unchanged', status: 200, summary: null });
    expect(again.source).toMatchObject({ lastSuccessAt: clock, lastIngestAt: NOW });
    expect(await sourceFiles()).toBe(1);
  });

  it('never replaces good data with a failed, cut or broken download', async () => {
    const good = guide('Good');
    let answer: 'good' | 'error' | 'cut' | 'broken' = 'good';
    server.on(`/${engine}/unreliable.xml`, (_req, res) => {
      if (answer === 'error') {
        res.writeHead(500);
        res.end();
      } else if (answer === 'cut') {
        res.writeHead(200, { 'content-length': good.length, etag: '"cut"' });
        res.write(good.subarray(0, 2_000));
        setTimeout(() => res.destroy(), 10);
      } else if (answer === 'broken') {
        // A complete answer whose XML stops half-way (no length to tell it was cut).
        res.writeHead(200, { etag: '"broken"' });
        res.end(guide('Broken').subarray(0, 3_000));
      } else {
        res.writeHead(200, { etag: '"good"' });
        res.end(good);
      }
    });
    const source = await add(`/${engine}/unreliable.xml`, { everyMs: DAY });
    expect((await refreshSource(deps, source.id, { force: true })).outcome).toBe('ingested');
    const catalogue = async () => ({
      channels: await store.catalogue.listChannels('IE'),
      one: await programmes('one.ie'),
      two: await programmes('two.ie'),
      files: await sourceFiles(),
    });
    const kept = await catalogue();

    const expectations = [
      ['error', /^HTTP 500 Internal Server Error from .* \(after 2 tries\)$/, 500, 5],
      ['cut', /cut short at 2000 of \d+ bytes \(after 2 tries\)$/, 200, 10],
      ['broken', /^line \d+: /, 200, 20],
    ] as const;
    for (const [kind, message, status, waitMinutes] of expectations) {
      answer = kind;
      clock += 60_000;
      const failed = await refreshSource(deps, source.id, { force: true });
      expect(failed, kind).toMatchObject({ outcome: 'failed', status, summary: null });
      expect(failed.error, kind).toMatch(message);
      expect(failed.source, kind).toMatchObject({
        lastOutcome: 'failed',
        lastSuccessAt: NOW,
        lastIngestAt: NOW,
        // The validators of the content last ingested are kept, so the guide is fetched again.
        etag: '"good"',
        // Retries wait 5, 10, 20 minutes (then double up to the interval).
        nextRunAt: clock + waitMinutes * 60_000,
      });
      expect(failed.flags).toEqual(['last-refresh-failed']);
      expect(await catalogue(), kind).toEqual(kept);
    }
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      'source refresh failed',
      'source refresh failed',
      'source refresh failed',
    ]);

    // The publisher fixes its guide: the next try sends the last good ETag and gets it all.
    answer = 'good';
    const recovered = await refreshSource(deps, source.id, { force: true });
    expect(server.seen(`/${engine}/unreliable.xml`).at(-1)?.ifNoneMatch).toBe('"good"');
    expect(recovered.source).toMatchObject({
      failures: 0,
      lastOutcome: 'unchanged',
      lastError: null,
    });
  });

  it('ingests a guide that is all in the past (history), flagged as ended', async () => {
    server.on(`/${engine}/old.xml`, (_req, res) => res.end(guide('Old', NOW - 10 * DAY, 24)));
    const source = await add(`/${engine}/old.xml`, { assumeOffsetMinutes: 0 });
    const result = await refreshSource(deps, source.id, { force: true });
    expect(result).toMatchObject({ outcome: 'ingested', flags: ['schedule-ended'] });
    expect(result.source?.latestEndMs).toBe(NOW - 9 * DAY);
    expect(await programmes()).toHaveLength(24);
    expect(logs.at(-1)).toMatchObject({
      level: 'info',
      details: expect.objectContaining({ flags: ['schedule-ended'] }),
    });

    // One that ends within a day is flagged too.
    server.on(`/${engine}/short.xml`, (_req, res) => res.end(guide('Short', NOW, 12)));
    const short = await add(`/${engine}/short.xml`, { assumeOffsetMinutes: 0 });
    expect((await refreshSource(deps, short.id, { force: true })).flags).toEqual([
      'schedule-ending',
    ]);
  });

  it('leaves a source another process is refreshing alone, and says so', async () => {
    server.on(`/${engine}/busy.xml`, (_req, res) => res.end(guide('Busy')));
    const source = await add(`/${engine}/busy.xml`);
    const other = await store.sources.claimSource(source.id, {
      holder: 'other-instance',
      nowMs: clock,
      leaseMs: 60_000,
      onlyIfDue: true,
    });
    expect(other).not.toBeNull();
    const result = await refreshSource(deps, source.id, { force: true });
    expect(result).toMatchObject({ outcome: 'busy', source: { leaseHolder: 'other-instance' } });
    expect(server.seen(`/${engine}/busy.xml`)).toHaveLength(0);
    expect(await refreshSource(deps, 'no-such-source', { force: true })).toMatchObject({
      outcome: 'missing',
      source: null,
    });
  });

  it('renews its lease while a long download runs, so no one else takes the source', async () => {
    server.on(`/${engine}/slow.xml`, (_req, res) => {
      setTimeout(() => res.end(guide('Slow')), 4_500);
    });
    const source = await add(`/${engine}/slow.xml`);
    const real = {
      ...deps,
      now: () => Date.now(),
      leaseMs: 3_000,
      limits: { ...LIMITS, idleTimeoutMs: 10_000, timeoutMs: 10_000 },
    };
    const started = Date.now();
    const refreshing = refreshSource(real, source.id, { force: true });
    // Past the first lease's end: the holder has renewed it.
    await new Promise((r) => setTimeout(r, 3_600));
    const taken = await store.sources.claimSource(source.id, {
      holder: 'other-instance',
      nowMs: Date.now(),
      leaseMs: 60_000,
      onlyIfDue: false,
    });
    expect(taken, `claimed ${Date.now() - started} ms after the start`).toBeNull();
    expect((await refreshing).outcome).toBe('ingested');
    expect(server.seen(`/${engine}/slow.xml`)).toHaveLength(1);
  });
});
