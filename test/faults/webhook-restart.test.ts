import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookPayload } from '../../clients/typescript/src/index.js';
import { changeEntry } from '../../src/domain/changes.js';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import {
  startWebhookReceiver,
  webhookGuide,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

/**
 * `kill -9` of `bin/onair serve` while a webhook's batch is being retried: the batch waits in
 * the database, and the next `serve` delivers it once, in order, when the receiver takes it.
 */

let cli: CliSandbox;
let receiver: WebhookReceiver;
let serve: ServeProcess | null = null;

const START = Date.UTC(2026, 8, 1);
const guide = (title: string) =>
  webhookGuide(
    [
      { id: 'one.ie', name: 'One', count: 1100, title },
      { id: 'two.ie', name: 'Two', count: 5, title },
    ],
    START,
  );

beforeAll(async () => {
  cli = createCliSandbox();
  Object.assign(cli.env, {
    WEBHOOK_ALLOW_HTTP: '1',
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    WEBHOOK_CHECK_SECONDS: '1',
    WEBHOOK_TIMEOUT_SECONDS: '2',
  });
  receiver = await startWebhookReceiver();
  writeFileSync(join(cli.dir, 'a.xml'), guide('Before'));
  writeFileSync(join(cli.dir, 'b.xml'), guide('After'));
  await cli.json(['ingest', join(cli.dir, 'a.xml'), '--country', 'IE']);
  await cli.json(['accounts', 'create', '--email', 'ann@example.com', '--verified']);
});
afterAll(async () => {
  await serve?.stop();
  await receiver?.close();
  cli?.dispose();
});

async function until(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a restart of serve while a webhook is retried', () => {
  it('loses nothing and sends nothing twice once the receiver takes it', async () => {
    const created = await cli.json<{ id: string; secret: string; deliveredSeq: number }>([
      'webhooks',
      'create',
      '--email',
      'ann@example.com',
      '--url',
      receiver.url,
      '--country',
      'IE',
    ]);
    receiver.fallback = 500;
    serve = await startServe(cli);
    // An ingest by another process: the server sees the catalogue move and delivers.
    await cli.json(['ingest', join(cli.dir, 'b.xml'), '--country', 'IE']);
    await until(() => receiver.received.length >= 2, 'two failed attempts');
    // After the second failure is written (the receiver answers at once), before the retry.
    await new Promise((r) => setTimeout(r, 300));
    serve.child.kill('SIGKILL');
    await new Promise((r) => serve?.child.once('exit', r));
    serve = null;
    const failedAttempts = receiver.received.length;

    receiver.fallback = 200;
    serve = await startServe(cli);
    await until(
      () => receiver.received.length >= failedAttempts + 2,
      'the two batches after the restart',
    );
    // A few more passes: nothing more is sent.
    await new Promise((r) => setTimeout(r, 3_000));
    await serve.stop();
    serve = null;

    const payloads: WebhookPayload[] = [];
    for (const request of receiver.received) {
      payloads.push(
        await verifyWebhook(
          created.secret,
          String(request.headers['onair-signature']),
          request.body,
        ),
      );
    }
    const failed = payloads.slice(0, failedAttempts);
    const delivered = payloads.slice(failedAttempts);
    // Every failed attempt carried the same first batch; the two after the restart carry
    // every change, in order, once.
    expect(new Set(failed.map((p) => JSON.stringify(p.changes))).size).toBe(1);
    expect(delivered.map((p) => p.changes.length)).toEqual([1000, 105]);
    expect(delivered[0]?.changes).toEqual(failed[0]?.changes);

    const store = openSqliteStore({ path: join(cli.dir, 'onair.db'), nowMs: Date.now() });
    try {
      const log = await store.changes.read({
        after: created.deliveredSeq,
        limit: 100_000,
        country: 'IE',
        channels: null,
      });
      expect(log.records).toHaveLength(1105);
      expect(delivered.flatMap((p) => p.changes)).toEqual(log.records.map(changeEntry));
      const webhook = await store.webhooks.findWebhook(created.id);
      expect(webhook).toMatchObject({
        deliveredSeq: log.bounds.newest,
        failures: 0,
        disabledAt: null,
        claimedBy: null,
      });
      const attempts = await store.webhooks.listAttempts(created.id);
      expect(attempts.map((a) => a.status)).toEqual([
        200,
        200,
        ...Array<number>(failedAttempts).fill(500),
      ]);
    } finally {
      await store.close();
    }
  }, 90_000);
});
