import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { throwAwayRedis, type RedisProcess } from '../helpers/redis-process.js';

/** Two instances over one SQLite file and a Redis of their own that the test stops. */
let cli: CliSandbox;
let redis: RedisProcess;
let a: ServeProcess;
let b: ServeProcess;
let key: string;

beforeAll(async () => {
  cli = createCliSandbox();
  redis = await throwAwayRedis();
  await redis.start();
  await cli.json(['accounts', 'create', '--email', 'load@example.com', '--verified']);
  key = (await cli.json<{ key: string }>(['keys', 'create', '--email', 'load@example.com'])).key;
  a = await startServe(cli, [], { REDIS_URL: redis.url });
  b = await startServe(cli, [], { REDIS_URL: redis.url });
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
  cli?.dispose();
});

const nextWindow = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 50));

async function burst(n: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${(i % 2 ? a : b).url}/api/v1/countries`, {
        headers: { authorization: `Bearer ${key}` },
      }).then((r) => r.status),
    ),
  );
}

describe('Redis stops under load', () => {
  it('answers keep coming on each instance’s local limiter, and the shared budget returns with Redis', async () => {
    await nextWindow();
    expect((await burst(12)).filter((s) => s === 200)).toHaveLength(3);

    await redis.stop();
    for (let round = 0; round < 3; round++) {
      await nextWindow();
      const started = Date.now();
      const statuses = await burst(12);
      expect(Date.now() - started).toBeLessThan(800);
      expect(
        statuses.every((s) => s === 200 || s === 429),
        String(statuses),
      ).toBe(true);
      // Each instance now allows 3 on its own: between 3 and 6 together.
      const admitted = statuses.filter((s) => s === 200).length;
      expect(admitted).toBeGreaterThanOrEqual(3);
      expect(admitted).toBeLessThanOrEqual(6);
    }

    await redis.start();
    await expect
      .poll(
        async () => {
          await nextWindow();
          return (await burst(12)).filter((s) => s === 200).length;
        },
        { timeout: 15_000, interval: 0 },
      )
      .toBe(3);
  });
});
