import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSourceScheduler, type SourceScheduler } from '../../src/sources/source-scheduler.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import { startGuideServer, type GuideServer } from '../helpers/guide-server.js';

const HOUR = 3_600_000;
const LIMITS = {
  timeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  maxBytes: 1024 * 1024,
  attempts: 1,
  retryDelayMs: 10,
};

let temp: TempStore;
let server: GuideServer;
let scheduler: SourceScheduler | null;
let logs: { level: string; message: string; details: Record<string, unknown> }[];
let clock: number;

beforeEach(async () => {
  clock = Date.UTC(2026, 2, 1, 6);
  temp = openTempStore(clock);
  server = await startGuideServer();
  logs = [];
  scheduler = null;
});
afterEach(async () => {
  await scheduler?.stop();
  await server.close();
  await temp.dispose();
});

function start(holder = 'scheduler-test', lines = logs): SourceScheduler {
  const log = (level: string) => (details: object, message: string) =>
    lines.push({ level, message, details: details as Record<string, unknown> });
  return startSourceScheduler(
    {
      store: temp.store,
      now: () => clock,
      log: { info: log('info'), warn: log('warn'), error: log('error') },
      limits: LIMITS,
      retentionDays: null,
      changesRetentionDays: null,
      holder,
    },
    3_600_000, // only the first pass and the test's own ticks
  );
}

describe('the refresh loop', () => {
  it('refreshes due sources on its passes, and logs flagged ones when the flag appears', async () => {
    server.on('/old.xml', (_req, res) =>
      res.end(
        '<tv><channel id="a.ie"><display-name>A</display-name></channel>' +
          '<programme start="20260201060000 +0000" stop="20260201070000 +0000" channel="a.ie"><title>Old</title></programme></tv>',
      ),
    );
    const source = await temp.store.sources.addSource(
      { location: `${server.base}/old.xml`, country: 'IE', everyMs: HOUR, assumeOffsetMinutes: 0 },
      clock,
    );
    scheduler = start();
    await scheduler.tick(); // joins the first pass, started at once
    expect(server.seen('/old.xml')).toHaveLength(1);
    expect((await temp.store.sources.findSource(source.id))?.lastOutcome).toBe('ingested');
    const attention = logs.filter((l) => l.message.startsWith('source needs attention'));
    expect(attention).toHaveLength(1);
    expect(attention[0]?.details).toMatchObject({ source: source.id, flags: ['schedule-ended'] });
    expect(attention[0]?.message).toContain('its schedule ended at 2026-02-01T07:00:00.000Z');

    // Not due: nothing fetched; still flagged but not logged again within the hour.
    clock += 10 * 60_000;
    await scheduler.tick();
    expect(server.seen('/old.xml')).toHaveLength(1);
    expect(logs.filter((l) => l.message.startsWith('source needs attention'))).toHaveLength(1);

    // Due, and the publisher is down: a failed refresh, and a new flag is logged at once.
    server.on('/old.xml', (_req, res) => {
      res.writeHead(503);
      res.end();
    });
    clock += HOUR;
    await scheduler.tick();
    expect(server.seen('/old.xml')).toHaveLength(2);
    const flagged = logs.filter((l) => l.message.startsWith('source needs attention'));
    expect(flagged).toHaveLength(2);
    expect(flagged[1]?.details['flags']).toEqual(['schedule-ended', 'last-refresh-failed']);
    expect(logs.filter((l) => l.message === 'source refresh failed')).toHaveLength(1);
  });

  it('warns once over one database, whichever of several servers checks first', async () => {
    server.on('/old.xml', (_req, res) =>
      res.end(
        '<tv><channel id="a.ie"><display-name>A</display-name></channel>' +
          '<programme start="20260201060000 +0000" stop="20260201070000 +0000" channel="a.ie"><title>Old</title></programme></tv>',
      ),
    );
    await temp.store.sources.addSource(
      { location: `${server.base}/old.xml`, country: 'IE', everyMs: HOUR, assumeOffsetMinutes: 0 },
      clock,
    );
    const lines: (typeof logs)[] = [[], [], []];
    const fleet = lines.map((sink, i) => start(`instance-${i}`, sink));
    const warnings = () =>
      lines.map((sink) => sink.filter((l) => l.message.startsWith('source needs attention')));
    try {
      await Promise.all(fleet.map((instance) => instance.tick()));
      // One refreshed the source; one of them (any) warned about its ended schedule.
      expect(server.seen('/old.xml')).toHaveLength(1);
      expect(warnings().flat()).toHaveLength(1);
      expect(warnings().flat()[0]?.details['flags']).toEqual(['schedule-ended']);

      clock += 10 * 60_000;
      await Promise.all(fleet.map((instance) => instance.tick()));
      expect(warnings().flat()).toHaveLength(1);
      // An hour after the warning, again once (the source was refreshed once more meanwhile).
      clock += HOUR;
      for (const instance of fleet) await instance.tick();
      expect(server.seen('/old.xml')).toHaveLength(2);
      expect(warnings().flat()).toHaveLength(2);
    } finally {
      await Promise.all(fleet.map((instance) => instance.stop()));
    }
  });

  it('stops at once, aborting a download in progress, and records it as not done', async () => {
    server.on('/slow.xml', () => undefined); // never answers
    const source = await temp.store.sources.addSource(
      { location: `${server.base}/slow.xml`, country: 'IE', everyMs: HOUR, assumeOffsetMinutes: 0 },
      clock,
    );
    scheduler = start();
    for (let i = 0; i < 100 && server.seen('/slow.xml').length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(server.seen('/slow.xml')).toHaveLength(1);
    await scheduler.stop();
    scheduler = null;
    const after = await temp.store.sources.findSource(source.id);
    expect(after).toMatchObject({
      lastOutcome: 'failed',
      lastError: 'stopped: the server is shutting down',
      leaseHolder: null,
    });
  });
});
