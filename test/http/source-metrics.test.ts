import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

const HOUR = 3_600_000;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The value of a metric line with these labels, or undefined. */
function value(text: string, name: string, source: string): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes(`source="${source}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('source freshness in /metrics', () => {
  it('shows each source’s last success, ingest and schedule end; /readyz stays ready when stale', async () => {
    const { sources } = t.temp.store;
    const fresh = await sources.addSource(
      {
        location: 'https://user:secret@guides.example/ie.xml?token=abc',
        country: 'IE',
        everyMs: 6 * HOUR,
        assumeOffsetMinutes: 0,
      },
      TEST_NOW - 2 * HOUR,
    );
    const stale = await sources.addSource(
      { location: '/srv/guides/old.xml', country: 'DE', everyMs: HOUR, assumeOffsetMinutes: 0 },
      TEST_NOW - 10 * HOUR,
    );
    const finish = async (id: string, at: number, latestEndMs: number, failures: number) => {
      const claimed = await sources.claimSource(id, {
        holder: 'test',
        nowMs: at,
        leaseMs: 60_000,
        onlyIfDue: false,
      });
      expect(claimed).not.toBeNull();
      await sources.finishRefresh(id, 'test', {
        nextRunAt: at + HOUR,
        failures,
        lastSuccessAt: at,
        lastIngestAt: at,
        lastStatus: 200,
        lastOutcome: failures === 0 ? 'ingested' : 'failed',
        lastError: failures === 0 ? null : 'HTTP 503',
        etag: null,
        lastModified: null,
        contentSha256: null,
        sourceFileId: null,
        channels: 1,
        programmes: 1,
        latestEndMs,
      });
    };
    await finish(fresh.id, TEST_NOW - HOUR, TEST_NOW + 5 * 24 * HOUR, 0);
    // Last success 9 hours ago at a 1-hour interval, and its schedule ended: stale.
    await finish(stale.id, TEST_NOW - 9 * HOUR, TEST_NOW - HOUR, 4);

    const res = await t.get('/metrics');
    expect(res.statusCode).toBe(200);
    const text = res.body;
    const seconds = (ms: number) => ms / 1000;
    expect(value(text, 'onair_source_last_success_timestamp_seconds', fresh.id)).toBe(
      seconds(TEST_NOW - HOUR),
    );
    expect(value(text, 'onair_source_last_ingest_timestamp_seconds', stale.id)).toBe(
      seconds(TEST_NOW - 9 * HOUR),
    );
    expect(value(text, 'onair_source_latest_programme_end_timestamp_seconds', fresh.id)).toBe(
      seconds(TEST_NOW + 5 * 24 * HOUR),
    );
    expect(value(text, 'onair_source_consecutive_failures', stale.id)).toBe(4);
    expect(value(text, 'onair_source_stale', fresh.id)).toBe(0);
    expect(value(text, 'onair_source_stale', stale.id)).toBe(1);
    // Labels carry no credentials or query.
    expect(text).toContain(
      `onair_source_stale{source="${fresh.id}",location="https://guides.example/ie.xml",country="IE"} 0`,
    );
    expect(text).not.toContain('secret');
    expect(text).not.toContain('token=abc');

    expect((await t.get('/readyz')).json()).toEqual({ status: 'ready' });

    // A removed source is gone from the next scrape.
    await sources.removeSource(stale.id);
    await new Promise((r) => setTimeout(r, 600));
    expect(value((await t.get('/metrics')).body, 'onair_source_stale', stale.id)).toBeUndefined();
  });
});
