import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { throwAwayPostgres, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { throwAwayRedis, type RedisProcess } from '../helpers/redis-process.js';
import { fixturePath } from '../ingest/ingest-helpers.js';

/**
 * Scaled mode under steady load: two `bin/onair serve` instances over a throw-away PostgreSQL
 * and a throw-away Redis (the machine's shared ones are never touched), with Redis and then
 * PostgreSQL stopped and restarted while requests keep coming. Redis down: every answer still
 * comes, from each instance's own limiter. PostgreSQL down: 503 SERVICE_UNAVAILABLE with
 * Retry-After within about 3 s, never a 401, a 500 or a hang. Both back: full service again,
 * with no restart of Onair.
 */

let cli: CliSandbox;
let postgres: PostgresCluster;
let redis: RedisProcess;
let a: ServeProcess;
let b: ServeProcess;
let fastKey: string;
let tightKey: string;
let channelId: string;

beforeAll(async () => {
  postgres = await throwAwayPostgres();
  postgres.start();
  redis = await throwAwayRedis();
  await redis.start();
  cli = createCliSandbox();
  cli.env.DATABASE_URL = postgres.url;
  await cli.json(['ingest', fixturePath('basic.xml'), '--country', 'IE']);
  for (const [email, limit] of [
    ['fast@example.com', '100000'],
    ['tight@example.com', '3'],
  ] as const) {
    await cli.json(['accounts', 'create', '--email', email, '--verified', '--rate-limit', limit]);
  }
  fastKey = (await cli.json<{ key: string }>(['keys', 'create', '--email', 'fast@example.com']))
    .key;
  tightKey = (await cli.json<{ key: string }>(['keys', 'create', '--email', 'tight@example.com']))
    .key;
  a = await startServe(cli, [], { REDIS_URL: redis.url });
  b = await startServe(cli, [], { REDIS_URL: redis.url });
  const search = (await (
    await fetch(`${a.url}/api/v1/channels/search?q=rt`, {
      headers: { authorization: `Bearer ${fastKey}` },
    })
  ).json()) as { results: { channelId: string }[] };
  channelId = search.results[0]?.channelId ?? '';
}, 90_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
  postgres?.destroy();
  cli?.dispose();
});

interface Sample {
  at: number;
  phase: string;
  status: number;
  ms: number;
  code: string | null;
  retryAfter: string | null;
}

/** Requests from `loops` clients, alternating instances and routes, until stopped. */
function load(loops: number) {
  const samples: Sample[] = [];
  let phase = 'warm-up';
  let running = true;
  const urls = () => [
    '/api/v1/countries',
    '/api/v1/countries/IE/channels',
    '/api/v1/channels/search?q=rt',
    `/api/v1/channels/${channelId}/programmes?days=all`,
  ];
  const worker = async (n: number) => {
    for (let i = n; running; i++) {
      const instance = i % 2 === 0 ? a : b;
      const url = `${instance.url}${urls()[i % 4]}`;
      const started = Date.now();
      const currentPhase = phase;
      try {
        const res = await fetch(url, {
          headers: { authorization: `Bearer ${fastKey}` },
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as { code?: string };
        samples.push({
          at: started,
          phase: currentPhase,
          status: res.status,
          ms: Date.now() - started,
          code: body.code ?? null,
          retryAfter: res.headers.get('retry-after'),
        });
      } catch (error) {
        samples.push({
          at: started,
          phase: currentPhase,
          status: 0,
          ms: Date.now() - started,
          code: String(error),
          retryAfter: null,
        });
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const workers = Array.from({ length: loops }, (_, n) => worker(n));
  return {
    samples,
    setPhase(next: string) {
      phase = next;
    },
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

const statusOf = async (url: string) => (await fetch(url)).status;

function summary(samples: Sample[], phase: string) {
  const inPhase = samples.filter((s) => s.phase === phase);
  const statuses: Record<string, number> = {};
  for (const s of inPhase)
    statuses[`${s.status} ${s.code ?? ''}`.trim()] =
      (statuses[`${s.status} ${s.code ?? ''}`.trim()] ?? 0) + 1;
  return { count: inPhase.length, maxMs: Math.max(0, ...inPhase.map((s) => s.ms)), statuses };
}

const nextWindow = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 50));

async function tightBurst(): Promise<number> {
  const statuses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      fetch(`${(i % 2 ? a : b).url}/api/v1/countries`, {
        headers: { authorization: `Bearer ${tightKey}` },
      }).then((r) => r.status),
    ),
  );
  return statuses.filter((s) => s === 200).length;
}

describe('PostgreSQL and Redis stopped and restarted under load', () => {
  it('answers as documented through each outage and recovers fully without a restart', async () => {
    const pids = [a.child.pid, b.child.pid];
    const traffic = load(4);
    await new Promise((r) => setTimeout(r, 1_500));

    traffic.setPhase('redis down');
    await redis.stop();
    await new Promise((r) => setTimeout(r, 3_000));

    traffic.setPhase('redis back');
    await redis.start();
    await new Promise((r) => setTimeout(r, 2_000));

    traffic.setPhase('postgres down');
    postgres.stop();
    // Meanwhile the process is up and says its storage is not.
    for (const instance of [a, b]) {
      expect(await statusOf(`${instance.url}/healthz`)).toBe(200);
      await expect.poll(() => statusOf(`${instance.url}/readyz`), { timeout: 5_000 }).toBe(503);
    }
    await new Promise((r) => setTimeout(r, 3_000));

    traffic.setPhase('postgres restarting');
    postgres.start();
    for (const instance of [a, b]) {
      await expect.poll(() => statusOf(`${instance.url}/readyz`), { timeout: 20_000 }).toBe(200);
    }
    traffic.setPhase('recovered');
    await new Promise((r) => setTimeout(r, 2_000));
    await traffic.stop();

    const { samples } = traffic;
    const phases = [
      'warm-up',
      'redis down',
      'redis back',
      'postgres down',
      'postgres restarting',
      'recovered',
    ];
    console.log(
      `outages under load: ${JSON.stringify(Object.fromEntries(phases.map((p) => [p, summary(samples, p)])))}`,
    );
    // Never a hang, a dropped request, a 401 or a 500, whatever the phase.
    for (const s of samples) {
      expect([200, 503], JSON.stringify(s)).toContain(s.status);
      expect(s.ms, JSON.stringify(s)).toBeLessThan(3_500);
    }
    // Redis down or back, PostgreSQL up: every request served.
    for (const phase of ['warm-up', 'redis down', 'redis back', 'recovered']) {
      const { count, statuses } = summary(samples, phase);
      expect(count, phase).toBeGreaterThan(20);
      expect(statuses, phase).toEqual({ '200': count });
    }
    // PostgreSQL down: the documented 503.
    const down = samples.filter((s) => s.phase === 'postgres down');
    expect(down.filter((s) => s.status === 503).length).toBeGreaterThan(5);
    for (const s of down.filter((x) => x.status === 503)) {
      expect(s).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
    }

    // The same processes throughout, with the fleet-wide budget back in Redis.
    expect([a.child.pid, b.child.pid]).toEqual(pids);
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
    await expect
      .poll(
        async () => {
          await nextWindow();
          return tightBurst();
        },
        { timeout: 15_000, interval: 0 },
      )
      .toBe(3);
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/^onair_ratelimit_fallback_decisions_total [1-9]/m);
    expect(metrics).toMatch(/^onair_ratelimit_redis_up 1$/m);
  });
});
