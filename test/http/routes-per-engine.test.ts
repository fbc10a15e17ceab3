import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/accounts/account-service.js';
import { buildApp } from '../../src/app.js';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import { ENGINES, openEngineStore, type EngineStore } from '../helpers/engines.js';
import { fixturePath } from '../ingest/ingest-helpers.js';

/** A fixed "now" inside the fixtures' schedules. */
const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);

interface Running {
  engine: string;
  store: EngineStore;
  services: Services;
  app: FastifyInstance;
  key: string;
  disabledKey: string;
}

const running: Running[] = [];

beforeAll(async () => {
  for (const engine of ENGINES) {
    const store = await openEngineStore(engine, NOW);
    for (const name of ['basic.xml', 'messy.xml', 'unsorted.xml', 'latin1.xml']) {
      await ingestXmltv(
        store.store.ingest,
        { source: fixturePath(name) },
        {
          country: null,
          assumeOffsetMinutes: 0,
          nowMs: NOW,
        },
      );
    }
    const config = loadConfig({ DATABASE_URL: store.databaseUrl });
    const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }));
    const services = await createServices(config, store.store, logger, () => NOW);
    const app = await buildApp({ config, store: store.store, now: () => NOW, ...services }, logger);
    const account = await store.store.accounts.createAccount(
      { email: 'api@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: 100_000 },
      NOW,
    );
    const off = await store.store.accounts.createAccount(
      { email: 'off@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
      NOW,
    );
    await store.store.accounts.updateAccount(off.id, { disabled: true }, NOW);
    running.push({
      engine,
      store,
      services,
      app,
      key: (await issueApiKey(store.store.accounts, account.id, 'k', NOW)).key,
      disabledKey: (await issueApiKey(store.store.accounts, off.id, 'k', NOW)).key,
    });
  }
}, 60_000);

afterAll(async () => {
  for (const r of running) {
    await r.app.close();
    await r.services.close();
    await r.store.dispose();
  }
});

async function answer(r: Running, url: string, key = r.key) {
  const res = await r.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  return { status: res.statusCode, body: res.json() as unknown };
}

describe(`the v1 routes on every engine (${ENGINES.join(', ')})`, () => {
  it('answer every request with the same status and the same bytes', async () => {
    const first = running[0];
    if (first === undefined) throw new Error('no engine');
    const channels = (await answer(first, '/api/v1/countries/UK/channels')).body as {
      channels: { id: string }[];
    };
    expect(channels.channels.length).toBeGreaterThan(0);
    const ids = channels.channels.map((c) => c.id);
    const urls = [
      '/api/v1/countries',
      '/api/v1/countries/uk/channels',
      '/api/v1/countries/ZZ/channels',
      '/api/v1/countries/bad_code/channels',
      '/api/v1/channels/search?q=e',
      '/api/v1/channels/search?q=TÉLÉ',
      '/api/v1/channels/search?q=%25',
      '/api/v1/channels/search?q=e&country=de',
      '/api/v1/channels/search?q=',
      '/api/v1/channels/00000000-0000-4000-8000-000000000000/programmes',
      '/api/v1/channels/not-a-uuid/programmes',
      '/api/v1/nope',
      ...ids.flatMap((id) => [
        `/api/v1/channels/${id}/programmes`,
        `/api/v1/channels/${id}/programmes?days=all`,
        `/api/v1/channels/${id}/programmes?all=1`,
        `/api/v1/channels/${id}/programmes?days=today`,
        `/api/v1/channels/${id}/programmes?days=yesterday`,
        `/api/v1/channels/${id}/programmes?days=365`,
        `/api/v1/channels/${id}/programmes?days=0`,
        `/api/v1/channels/${id}/programmes?days=1&all=1`,
      ]),
    ];
    for (const url of urls) {
      const answers = await Promise.all(running.map((r) => answer(r, url)));
      for (const [i, a] of answers.entries()) {
        // Source file ids are fresh UUIDs per ingest: compare their shape, not their value.
        const normal = JSON.stringify(a).replace(
          /"sourceFileId":"[0-9a-f-]{36}"/g,
          '"sourceFileId":"…"',
        );
        const base = JSON.stringify(answers[0]).replace(
          /"sourceFileId":"[0-9a-f-]{36}"/g,
          '"sourceFileId":"…"',
        );
        expect(normal, `${running[i]?.engine} ${url}`).toBe(base);
      }
    }
    // The comparison covers real schedules, not only empty lists.
    const today = await Promise.all(
      ids.map(
        async (id) => (await answer(first, `/api/v1/channels/${id}/programmes?days=today`)).body,
      ),
    );
    expect(today.some((b) => (b as { programmes: unknown[] }).programmes.length > 2)).toBe(true);
    for (const r of running) {
      expect((await answer(r, '/api/v1/countries', 'onair_garbage')).status).toBe(401);
      expect(await answer(r, '/api/v1/countries', r.disabledKey)).toEqual({
        status: 403,
        body: { error: expect.any(String), code: 'ACCOUNT_DISABLED' },
      });
    }
  });
});
