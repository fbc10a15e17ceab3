import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookPayload } from '../../clients/typescript/src/index.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { changeEntry } from '../../src/domain/changes.js';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../src/storage/postgres/postgres-store.js';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { ENGINES, freshPostgresDatabase } from '../helpers/engines.js';
import { freePort } from '../helpers/redis-process.js';
import {
  startWebhookReceiver,
  webhookGuide,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

/**
 * Two `serve` instances over one PostgreSQL database, both delivering webhooks: each batch
 * reaches its receiver once (a failed one again, on retry, by either instance), in order.
 */

const START = Date.UTC(2026, 8, 1);
const guide = (title: string, count: number) =>
  webhookGuide(
    [
      { id: 'one.ie', name: 'One', count, title },
      { id: 'two.fr', name: 'Two', count: 4, title },
    ],
    START,
  );

async function until<T>(probe: () => Promise<T | null>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let cli: CliSandbox;
let receiver: WebhookReceiver;
beforeAll(async () => {
  cli = createCliSandbox();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  cli?.dispose();
});

describe.runIf(ENGINES.includes('postgres'))('webhooks from two serve instances', () => {
  let database: { url: string; drop(): Promise<void> };
  let store: PostgresStore;
  const instances: ServeProcess[] = [];

  afterEach(async () => {
    for (const instance of instances.splice(0)) await instance.stop();
    await store?.close();
    await database?.drop();
  });

  it('deliver each batch once, in order, retries included', async () => {
    database = await freshPostgresDatabase();
    const env = {
      DATABASE_URL: database.url,
      OUTBOX_DIR: join(cli.dir, 'outbox'),
      WEBHOOK_ALLOW_HTTP: '1',
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_CHECK_SECONDS: '1',
    };
    const run = async (args: string[]) => {
      const result = await cli.run([...args, '--json'], env);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    for (const [name, title, count] of [
      ['a.xml', 'A', 10],
      ['b.xml', 'B', 1100],
      ['c.xml', 'C', 10],
      ['d.xml', 'D', 1100],
    ] as const) {
      writeFileSync(join(cli.dir, name), guide(title, count));
    }
    await run(['ingest', join(cli.dir, 'a.xml')]);
    await run(['accounts', 'create', '--email', 'ann@example.com', '--verified']);
    const hooks: { id: string; secret: string; from: number; filter: string[] }[] = [];
    for (const filter of [
      ['--country', 'IE'],
      ['--country', 'FR'],
      ['--channel', 'one.ie'],
    ]) {
      const created = await run([
        'webhooks',
        'create',
        '--email',
        'ann@example.com',
        '--url',
        receiver.url,
        ...filter,
      ]);
      hooks.push({
        id: created.id as string,
        secret: created.secret as string,
        from: created.deliveredSeq as number,
        filter,
      });
    }
    store = await openPostgresStore({ url: database.url, nowMs: Date.now() });

    const start = async () => startServe(cli, [], { ...env, PORT: String(await freePort()) });
    instances.push(...(await Promise.all([start(), start()])));
    // The first two requests fail, whichever instance sends them: retried, not lost.
    receiver.answers = [500, 503];
    for (const name of ['b.xml', 'c.xml', 'd.xml']) {
      await run(['ingest', join(cli.dir, name)]);
      await new Promise((r) => setTimeout(r, 500));
    }

    const { bounds } = await store.changes.read({
      after: Number.MAX_SAFE_INTEGER,
      limit: 1,
      country: null,
      channels: null,
    });
    await until(async () => {
      const states = await Promise.all(hooks.map((h) => store.webhooks.findWebhook(h.id)));
      return states.every((w) => w?.deliveredSeq === bounds.newest && w.claimedBy === null)
        ? true
        : null;
    }, 'every webhook delivered to the newest change');
    // More passes of both instances: nothing more is sent.
    await new Promise((r) => setTimeout(r, 3_000));

    const statuses: (number | null)[] = [];
    for (const hook of hooks) {
      const requests = receiver.received.filter((r) => r.headers['onair-webhook-id'] === hook.id);
      const payloads: WebhookPayload[] = [];
      for (const request of requests) {
        payloads.push(
          await verifyWebhook(
            hook.secret,
            String(request.headers['onair-signature']),
            request.body,
          ),
        );
      }
      const log = await store.changes.read({
        after: hook.from,
        limit: 100_000,
        country: hook.filter[0] === '--country' ? (hook.filter[1] ?? null) : null,
        channels: hook.filter[0] === '--channel' ? [channelIdFor('one.ie')] : null,
      });
      expect(log.records.length).toBeGreaterThan(0);
      const attempts = (await store.webhooks.listAttempts(hook.id)).reverse();
      statuses.push(...attempts.map((a) => a.status));
      expect(attempts).toHaveLength(requests.length);
      // What was delivered (2xx) is every record once, in order; a failed batch came again.
      const deliveredChanges = payloads.flatMap((p, i) =>
        attempts[i]?.status === 200 ? p.changes : [],
      );
      expect(deliveredChanges).toEqual(log.records.map(changeEntry));
      expect(payloads.every((p) => p.changes.length <= 1000)).toBe(true);
    }
    // The two failures were answered once each, and retried.
    expect(statuses.filter((status) => status !== 200).sort()).toEqual([500, 503]);

    // Each instance counts its own deliveries in /metrics; together, every request sent.
    const counted = { delivered: 0, failed: 0 };
    for (const instance of instances) {
      const text = await (await fetch(`${instance.url}/metrics`)).text();
      for (const outcome of ['delivered', 'failed'] as const) {
        const line = new RegExp(
          `^onair_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`,
          'm',
        );
        counted[outcome] += Number(line.exec(text)?.[1] ?? 0);
      }
    }
    expect(counted).toEqual({
      delivered: statuses.filter((status) => status === 200).length,
      failed: 2,
    });
  }, 120_000);
});
