import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { createAuditedWebhook } from '../../src/webhooks/webhook-admin.js';
import { startWebhookScheduler } from '../../src/webhooks/webhook-scheduler.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import {
  startWebhookReceiver,
  webhookGuide,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

/**
 * The server's delivery loop on the real clock: it sends within a second of an ingest (the
 * catalogue's version moved), wakes for a retry when it is due rather than at the next check,
 * and sends nothing once stopped.
 */

let temp: TempStore;
let receiver: WebhookReceiver;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const ingest = (title: string) =>
  ingestXmltv(
    temp.store.ingest,
    {
      name: 'guide.xml',
      data: webhookGuide([{ id: 'loop.ie', name: 'Loop', count: 2, title }], Date.UTC(2026, 8, 1)),
    },
    { country: null, assumeOffsetMinutes: 0, nowMs: Date.now() },
  );

beforeAll(async () => {
  temp = openTempStore(Date.now());
  receiver = await startWebhookReceiver();
  await ingest('Zero');
});
afterAll(async () => {
  await receiver?.close();
  await temp?.dispose();
});

describe('the webhook delivery loop', () => {
  it('delivers soon after an ingest, retries when due, and stops', async () => {
    const account = await temp.store.accounts.createAccount(
      { email: 'loop@example.com', verifiedAt: Date.now(), accessUntil: null, rateLimit: null },
      Date.now(),
    );
    await createAuditedWebhook(
      { store: temp.store, policy: { allowHttp: true, allowPrivate: false } },
      account.id,
      { url: receiver.url, filter: { kind: 'country', country: 'IE' } },
      'operator',
      Date.now(),
    );
    const scheduler = startWebhookScheduler(
      {
        store: temp.store,
        now: Date.now,
        log: quiet,
        holder: 'loop',
        policy: { allowHttp: true, allowPrivate: false },
        timeoutMs: 2_000,
        retryBaseMs: 1_000,
      },
      {
        // Far off: only the nudge and the retry's own time can explain a quick delivery.
        checkMs: 600_000,
        catalogueVersion: async () => (await temp.store.versions()).catalogue,
      },
    );
    try {
      // Let the first pass and the first look at the version go by.
      await new Promise((r) => setTimeout(r, 1_200));
      expect(receiver.received).toHaveLength(0);

      receiver.answers = [500];
      const ingested = Date.now();
      await ingest('One');
      await receiver.waitFor(1, 5_000);
      expect(Date.now() - ingested).toBeLessThan(2_500);
      await receiver.waitFor(2, 5_000);
      const retriedAfter = Date.now() - ingested;
      expect(retriedAfter).toBeGreaterThanOrEqual(1_000);
      expect(retriedAfter).toBeLessThan(3_500);
      expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    } finally {
      await scheduler.stop();
    }
    await ingest('Two');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.received).toHaveLength(2);
  });
});

describe('the webhook delivery loop, slowed', () => {
  it('sends a retry that came due while it was scheduling within a second, not at the next check', async () => {
    const slow = openTempStore(Date.now());
    const target = await startWebhookReceiver();
    try {
      const account = await slow.store.accounts.createAccount(
        { email: 'slow@example.com', verifiedAt: Date.now(), accessUntil: null, rateLimit: null },
        Date.now(),
      );
      const ingestSlow = (title: string) =>
        ingestXmltv(
          slow.store.ingest,
          {
            name: 'guide.xml',
            data: webhookGuide(
              [{ id: 'slow.ie', name: 'Slow', count: 2, title }],
              Date.UTC(2026, 8, 1),
            ),
          },
          { country: null, assumeOffsetMinutes: 0, nowMs: Date.now() },
        );
      await ingestSlow('A');
      await createAuditedWebhook(
        { store: slow.store, policy: { allowHttp: true, allowPrivate: false } },
        account.id,
        { url: target.url, filter: { kind: 'country', country: 'IE' } },
        'operator',
        Date.now(),
      );
      // Changes after the webhook was made: the loop's first pass sends them.
      await ingestSlow('B');
      target.answers = [500];
      // The loop's look at the next retry answers 1.5 s late, as on a loaded machine: the
      // retry (1 s after the failure) is due by the time the loop schedules its next pass.
      const webhooks = slow.store.webhooks;
      const store = {
        ...slow.store,
        webhooks: {
          ...webhooks,
          nextRetryAt: async () => {
            await new Promise((r) => setTimeout(r, 1_500));
            return webhooks.nextRetryAt();
          },
        },
      };
      const scheduler = startWebhookScheduler(
        {
          store,
          now: Date.now,
          log: quiet,
          holder: 'slow',
          policy: { allowHttp: true, allowPrivate: false },
          timeoutMs: 2_000,
          retryBaseMs: 1_000,
        },
        { checkMs: 600_000 },
      );
      try {
        await target.waitFor(1, 5_000);
        const failedAt = Date.now();
        await target.waitFor(2, 5_000);
        expect(Date.now() - failedAt).toBeLessThan(4_000);
      } finally {
        await scheduler.stop();
      }
    } finally {
      await target.close();
      await slow.dispose();
    }
  });
});
