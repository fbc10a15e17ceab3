import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/accounts/account-service.js';
import { buildApp } from '../../src/app.js';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../src/storage/postgres/postgres-store.js';
import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { throwAwayPostgres, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { fixturePath } from '../ingest/ingest-helpers.js';

let cluster: PostgresCluster;
let store: PostgresStore;
let services: Services;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  cluster = await throwAwayPostgres();
  cluster.start();
  const config = loadConfig({ DATABASE_URL: cluster.url });
  store = await openPostgresStore({ url: cluster.url, nowMs: Date.now(), timeoutMs: 1_000 });
  const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }));
  services = await createServices(config, store, logger);
  app = await buildApp({ config, store, now: () => Date.now(), ...services }, logger);
  await ingestXmltv(
    store.ingest,
    { source: fixturePath('basic.xml') },
    {
      country: 'IE',
      assumeOffsetMinutes: 0,
      nowMs: Date.now(),
    },
  );
  const account = await store.accounts.createAccount(
    { email: 'pg@example.com', verifiedAt: Date.now(), accessUntil: null, rateLimit: 1000 },
    Date.now(),
  );
  key = (await issueApiKey(store.accounts, account.id, 'k', Date.now())).key;
  await store.sources.addSource(
    { location: '/srv/guides/ie.xml', country: 'IE', everyMs: 3_600_000, assumeOffsetMinutes: 0 },
    Date.now(),
  );
}, 60_000);

/** The metric lines of /metrics named `name` (with their labels and values). */
async function metricLines(name: string): Promise<string[]> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
}

afterAll(async () => {
  await app?.close();
  await services?.close();
  await store?.close();
  cluster?.destroy();
});

// A search of the guide's own weeks, so its answer does not move with the clock.
const SEARCH = '/api/v1/programmes/search?q=news&from=2026-08-15T00:00:00Z&to=2026-09-10T00:00:00Z';

const get = (url: string) =>
  app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

describe('PostgreSQL outage', () => {
  it('answers 503 SERVICE_UNAVAILABLE quickly (never 401, never a hang), then recovers by itself', async () => {
    expect((await get('/api/v1/countries')).json()).toEqual({
      countries: [{ country: 'IE', channelCount: 2 }],
    });
    // The search's own connections (pipelined-connections.ts) are open before the outage.
    const found = await get(SEARCH);
    expect(found.statusCode).toBe(200);
    expect(found.json().results.length).toBeGreaterThan(0);
    expect(await metricLines('onair_storage_up')).toEqual(['onair_storage_up 1']);
    const failures = await metricLines('onair_source_consecutive_failures');
    const webhooks = await metricLines('onair_webhooks');
    expect(failures).toHaveLength(1);
    expect(webhooks).toHaveLength(3);
    cluster.stop();
    // Answers already in memory may go out until the instance notices (its listening connection
    // drops, or the versions read every second fails); after that every request is a 503.
    const stoppedAt = Date.now();
    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          const res = await get('/api/v1/countries');
          seen.add(res.statusCode);
          return res.statusCode;
        },
        { timeout: 3_000, interval: 20 },
      )
      .toBe(503);
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);
    expect([...seen].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    for (const url of ['/api/v1/countries', '/api/v1/channels/search?q=a', SEARCH]) {
      const started = Date.now();
      const res = await get(url);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('1');
    }
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // /metrics says the database is down, and shows what it read last rather than nothing: an
    // alert on a source or on disabled webhooks does not clear itself meanwhile.
    expect(await metricLines('onair_storage_up')).toEqual(['onair_storage_up 0']);
    expect(await metricLines('onair_source_consecutive_failures')).toEqual(failures);
    expect(await metricLines('onair_webhooks')).toEqual(webhooks);

    cluster.start();
    await expect
      .poll(async () => (await get('/api/v1/countries')).statusCode, {
        timeout: 15_000,
        interval: 200,
      })
      .toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(await metricLines('onair_storage_up')).toEqual(['onair_storage_up 1']);
    // A search again, on connections opened anew: the old ones ended with the server.
    const again = await get(SEARCH);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(found.body);
  });
});
