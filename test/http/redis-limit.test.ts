import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/test-app.js';
import { freePort, SHARED_REDIS_URL } from '../helpers/redis-process.js';

/** Waits for the start of the next 1-second window (Redis decides by its own clock). */
const nextWindow = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 30));

function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

describe('REDIS_URL: the account budget lives in Redis', () => {
  it('two apps over one Redis share one budget per account', async () => {
    const env = { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: `onair-test:${randomUUID()}:` };
    const a = await createTestApp(env, Date.now());
    const b = await createTestApp(env, Date.now());
    try {
      // The same account (same id) in both stores, as two instances over one database see it.
      const { account, key } = await a.customer(undefined, { rateLimit: null });
      const [keyRow] = await a.temp.sql(
        `SELECT * FROM api_keys WHERE account_id = '${account.id}'`,
      );
      await b.temp.sql(
        `INSERT INTO accounts (id, email, email_key, verified_at, created_at, updated_at)
         VALUES ('${account.id}', '${account.email}', '${account.email}', ${account.verifiedAt}, 1, 1)`,
      );
      await b.temp.sql(
        `INSERT INTO api_keys (id, account_id, name, key_hash, prefix, last_four, created_at)
         VALUES ('${keyRow?.id}', '${account.id}', 'k', '${keyRow?.key_hash}', '${keyRow?.prefix}', '${keyRow?.last_four}', 1)`,
      );

      for (let round = 0; round < 2; round++) {
        await nextWindow();
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).get('/api/v1/countries', key)),
        );
        const codes = answers.map((r) => r.statusCode);
        expect(codes.filter((c) => c === 200)).toHaveLength(3);
        expect(codes.filter((c) => c === 429)).toHaveLength(7);
      }
      // The budget's keys, named as docs/operations.md tells operators who look in Redis.
      const redis = new Redis(SHARED_REDIS_URL);
      try {
        // This window's key, and the last window's while its expiry is a few ms away.
        const keys = await redis.keys(`${env.REDIS_KEY_PREFIX}*`);
        expect(keys.length).toBeGreaterThan(0);
        for (const key of keys) {
          expect(key).toMatch(
            new RegExp(`^${env.REDIS_KEY_PREFIX}rl:account:${account.id}:\\d{13}$`),
          );
        }
      } finally {
        redis.disconnect();
      }
      const metrics = (await a.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metricValue(metrics, 'onair_ratelimit_redis_up')).toBe(1);
      expect(metricValue(metrics, 'onair_ratelimit_fallback_decisions_total')).toBe(0);
      expect(metrics).toMatch(/onair_http_requests_total\{area="api",status="429"\} \d+/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('/metrics says whether Redis answers from the start, before any request', async () => {
    const alone = await createTestApp();
    const shared = await createTestApp({
      REDIS_URL: SHARED_REDIS_URL,
      REDIS_KEY_PREFIX: `onair-test:${randomUUID()}:`,
    });
    const port = await freePort();
    const unreachable = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      const upOf = async (t: typeof alone) =>
        metricValue(
          (await t.inject({ method: 'GET', url: '/metrics' })).body,
          'onair_ratelimit_redis_up',
        );
      // No REDIS_URL: the instance limits alone, by design.
      expect(await upOf(alone)).toBe(0);
      expect(await upOf(shared)).toBe(1);
      expect(await upOf(unreachable)).toBe(0);
      // Said once at start, with the connection's own error rather than a failed command's.
      const said = unreachable
        .logs()
        .split('\n')
        .filter((l) => l.includes('not reachable at start'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
      expect(shared.logs()).not.toContain('not reachable at start');
    } finally {
      await alone.close();
      await shared.close();
      await unreachable.close();
    }
  });

  it('with Redis unreachable, the API keeps answering on the local limiter and says so in /metrics', async () => {
    const t = await createTestApp(
      { REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
      Date.UTC(2026, 7, 22, 10, 30, 0, 100),
    );
    try {
      const { key } = await t.customer(undefined, { rateLimit: null });
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await t.get('/api/v1/countries', key)).statusCode);
      expect(codes).toEqual([200, 200, 200, 429]);
      const metrics = (await t.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metricValue(metrics, 'onair_ratelimit_redis_up')).toBe(0);
      expect(metricValue(metrics, 'onair_ratelimit_fallback_decisions_total')).toBe(4);
      // A bad key is counted by another limiter (failed keys per address): on its own too.
      expect((await t.get('/api/v1/countries', 'onair_wrong')).statusCode).toBe(401);
      // The switch is said once, at start with the connection's error; no limiter says it again.
      expect(t.logs().match(/not reachable at start/g)).toHaveLength(1);
      expect(t.logs()).not.toMatch(/Redis did not answer/);
    } finally {
      await t.close();
    }
  });
});
