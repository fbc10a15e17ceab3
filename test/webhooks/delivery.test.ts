import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { changeEntry } from '../../src/domain/changes.js';
import { WEBHOOK_RETRY_WINDOW_MS, type WebhookFilter } from '../../src/domain/webhook.js';
import { createAuditedWebhook } from '../../src/webhooks/webhook-admin.js';
import {
  sendTestRequest,
  type DeliveryDeps,
  type WebhookPayload,
} from '../../src/webhooks/webhook-delivery.js';
import { deliverDue } from '../../src/webhooks/webhook-scheduler.js';
import type { Resolver } from '../../src/webhooks/webhook-target.js';
import { ENGINES, openEngineStore, type EngineStore } from '../helpers/engines.js';
import {
  startWebhookReceiver,
  webhookGuide,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

/**
 * Webhook delivery against a real local receiver (node:http), on both engines: what is sent,
 * signed how, in which order, and what a failing, hanging or refused receiver leads to. The
 * clock is the test's: retries and the retry window are driven by moving it.
 */

const BIG = channelIdFor('big.uk');
const SMALL = channelIdFor('small.fr');
const OTHER = channelIdFor('other.de');
const START = Date.UTC(2026, 8, 1, 0);

type Channels = Record<'big' | 'small' | 'other', string | null>;

/** A guide: big.uk has 1,100 programmes (one ingest of them is more than one batch). */
function guide(titles: Channels): Buffer {
  const channels = [];
  if (titles.big !== null) {
    channels.push({ id: 'big.uk', name: 'Big', count: 1100, title: titles.big });
  }
  if (titles.small !== null) {
    channels.push({ id: 'small.fr', name: 'Small', count: 3, title: titles.small });
  }
  if (titles.other !== null) {
    channels.push({ id: 'other.de', name: 'Other', count: 2, title: titles.other });
  }
  return webhookGuide(channels, START);
}

describe.each(ENGINES)('webhook delivery: %s', (engine) => {
  let s: EngineStore;
  let receiver: WebhookReceiver;
  let clock: number;
  let accountId: string;
  const lines: string[] = [];
  const log = {
    info: (details: object, message: string) => lines.push(JSON.stringify({ details, message })),
    warn: (details: object, message: string) => lines.push(JSON.stringify({ details, message })),
    error: (details: object, message: string) => lines.push(JSON.stringify({ details, message })),
  };
  const deps = (over: Partial<DeliveryDeps> = {}): DeliveryDeps => ({
    store: s.store,
    now: () => clock,
    log,
    holder: 'test-instance',
    policy: { allowHttp: true, allowPrivate: false },
    timeoutMs: 5_000,
    retryBaseMs: 30_000,
    ...over,
  });
  const ingest = (titles: Channels) =>
    ingestXmltv(
      s.store.ingest,
      { name: 'guide.xml', data: guide(titles) },
      { country: null, assumeOffsetMinutes: 0, nowMs: clock },
    );
  const create = (filter: WebhookFilter, url = receiver.url, resolve?: Resolver) =>
    createAuditedWebhook(
      {
        store: s.store,
        policy: { allowHttp: true, allowPrivate: false },
        ...(resolve ? { resolve } : {}),
      },
      accountId,
      { url, filter },
      'operator',
      clock,
    );
  /** Every request's payload, its signature checked with the client's verifyWebhook. */
  const verified = (requests: ReceivedRequest[], secret: string) =>
    Promise.all(
      requests.map((r) =>
        verifyWebhook(secret, r.headers['onair-signature'] as string, r.body, { now: clock }),
      ),
    );

  beforeAll(async () => {
    clock = Date.now();
    s = await openEngineStore(engine, clock);
    receiver = await startWebhookReceiver();
    accountId = (
      await s.store.accounts.createAccount(
        { email: 'hooks@example.com', verifiedAt: clock, accessUntil: null, rateLimit: null },
        clock,
      )
    ).id;
    await ingest({ big: 'Zero', small: 'Zero', other: 'Zero' });
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.dispose();
  });
  beforeEach(async () => {
    receiver.received.length = 0;
    receiver.answers = [];
    receiver.fallback = 200;
    lines.length = 0;
    for (const webhook of await s.store.webhooks.listAllWebhooks()) {
      await s.store.webhooks.deleteWebhook(webhook.id);
    }
  });

  it('delivers every change of three ingests once, in seq order, in signed batches of at most 1,000', async () => {
    const { webhook, secret } = await create({ kind: 'channels', channelIds: [BIG, SMALL] });
    // Each delivery's outcome, as the server counts them in /metrics.
    const outcomes: string[] = [];
    const observed = deps({ observe: (outcome) => outcomes.push(outcome) });
    await ingest({ big: 'One', small: 'One', other: 'One' }); // 1,103 changes of the two
    expect((await deliverDue(observed)).get(webhook.id)).toBe('delivered');
    await ingest({ big: 'One', small: 'Two', other: 'Two' }); // 3
    await deliverDue(observed);
    await ingest({ big: 'Three', small: 'Two', other: 'Two' }); // 1,100
    await deliverDue(observed);
    // Nothing new: no request.
    await deliverDue(observed);
    expect(outcomes.filter((o) => o === 'delivered')).toHaveLength(5);
    expect(outcomes.filter((o) => o !== 'delivered' && o !== 'nothing-new')).toEqual([]);

    const payloads: WebhookPayload[] = await verified(receiver.received, secret);
    const batches = payloads.map((p) => p.changes.length);
    expect(batches).toEqual([1000, 103, 3, 1000, 100]);
    expect(payloads.every((p) => p.webhookId === webhook.id)).toBe(true);
    // Exactly the log's records of those channels after the webhook was made, as /changes
    // gives them (every field, in order), each once.
    const log = await s.store.changes.read({
      after: webhook.deliveredSeq,
      limit: 100_000,
      country: null,
      channels: [BIG, SMALL],
    });
    expect(log.records).toHaveLength(2206);
    expect(payloads.flatMap((p) => p.changes)).toEqual(log.records.map(changeEntry));
    // Fields in the order /api/v1/changes writes them (test/http/changes.test.ts): the body's
    // records are that route's, byte for byte.
    for (const record of payloads.flatMap((p) => p.changes)) {
      expect(Object.keys(record)).toEqual(
        record.kind === 'programme'
          ? ['seq', 'kind', 'change', 'channelId', 'at', 'programmeId', 'start']
          : ['seq', 'kind', 'change', 'channelId', 'at'],
      );
    }
    expect((await s.store.webhooks.findWebhook(webhook.id))?.deliveredSeq).toBe(log.bounds.newest);

    for (const request of receiver.received) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['onair-webhook-id']).toBe(webhook.id);
      expect(request.headers['onair-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    }
    // The body is the records as JSON: the first batch's first record, whole.
    expect(JSON.parse(receiver.received[0]?.body ?? '')).toEqual({
      webhookId: webhook.id,
      changes: expect.arrayContaining([log.records.map(changeEntry)[0]]),
    });
    const attempts = await s.store.webhooks.listAttempts(webhook.id);
    expect(attempts.map((a) => [a.status, a.changes])).toEqual([
      [200, 100],
      [200, 1000],
      [200, 3],
      [200, 103],
      [200, 1000],
    ]);
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('sends each webhook only the changes of its country or its channels', async () => {
    const french = await create({ kind: 'country', country: 'FR' });
    const german = await create({ kind: 'channels', channelIds: [OTHER] });
    await ingest({ big: 'Four', small: 'Four', other: 'Four' });
    await deliverDue(deps());
    const to = (id: string) =>
      receiver.received.filter((r) => r.headers['onair-webhook-id'] === id);
    const frenchChanges = (await verified(to(french.webhook.id), french.secret)).flatMap(
      (p) => p.changes,
    );
    const germanChanges = (await verified(to(german.webhook.id), german.secret)).flatMap(
      (p) => p.changes,
    );
    expect(frenchChanges.map((c) => c.channelId)).toEqual([SMALL, SMALL, SMALL]);
    expect(germanChanges.map((c) => c.channelId)).toEqual([OTHER, OTHER]);
    // A webhook's signature does not verify with another's secret.
    await expect(verified(to(french.webhook.id), german.secret)).rejects.toMatchObject({
      code: 'WEBHOOK_SIGNATURE_MISMATCH',
    });
  });

  it('sends the same batch again after a 500, at the first retry, then moves on', async () => {
    const { webhook, secret } = await create({ kind: 'channels', channelIds: [SMALL] });
    receiver.answers = [500];
    await ingest({ big: 'Four', small: 'Five', other: 'Four' });
    expect((await deliverDue(deps())).get(webhook.id)).toBe('failed');
    const failed = await s.store.webhooks.findWebhook(webhook.id);
    expect(failed).toMatchObject({
      deliveredSeq: webhook.deliveredSeq,
      failures: 1,
      firstFailureAt: clock,
      nextAttemptAt: clock + 30_000,
    });
    // Not before the retry is due.
    clock += 29_999;
    await deliverDue(deps());
    expect(receiver.received).toHaveLength(1);
    clock += 1;
    expect((await deliverDue(deps())).get(webhook.id)).toBe('delivered');
    const [first, second] = await verified(receiver.received, secret);
    expect(second?.changes).toEqual(first?.changes);
    expect(first?.changes).toHaveLength(3);
    expect(await s.store.webhooks.findWebhook(webhook.id)).toMatchObject({
      deliveredSeq: first?.changes.at(-1)?.seq,
      failures: 0,
      firstFailureAt: null,
    });
    const attempts = await s.store.webhooks.listAttempts(webhook.id);
    expect(attempts.map((a) => [a.status, a.error, a.firstSeq, a.lastSeq])).toEqual([
      [200, null, first?.changes[0]?.seq, first?.changes[2]?.seq],
      [500, 'HTTP 500: receiver says 500', first?.changes[0]?.seq, first?.changes[2]?.seq],
    ]);
  });

  it('gives up on a receiver that does not answer in time, and tries it again', async () => {
    const { webhook } = await create({ kind: 'channels', channelIds: [SMALL] });
    receiver.answers = ['hang'];
    await ingest({ big: 'Four', small: 'Six', other: 'Four' });
    const started = Date.now();
    expect((await deliverDue(deps({ timeoutMs: 300 }))).get(webhook.id)).toBe('failed');
    expect(Date.now() - started).toBeLessThan(3_000);
    const [attempt] = await s.store.webhooks.listAttempts(webhook.id);
    expect(attempt).toMatchObject({ status: null, error: 'no answer within 0.3 s (timed out)' });
    expect(attempt?.durationMs).toBeGreaterThanOrEqual(250);
    clock += 30_000;
    expect((await deliverDue(deps({ timeoutMs: 300 }))).get(webhook.id)).toBe('delivered');
  });

  it('retries with doubling delays for 24 hours, then disables the webhook saying why', async () => {
    const { webhook } = await create({ kind: 'channels', channelIds: [SMALL] });
    receiver.fallback = 503;
    await ingest({ big: 'Four', small: 'Seven', other: 'Four' });
    const firstFailure = clock;
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      times.push(clock);
      await deliverDue(deps());
      const now = await s.store.webhooks.findWebhook(webhook.id);
      if (now?.disabledAt !== null) break;
      clock = now.nextAttemptAt;
    }
    const delays = times.slice(1).map((t, i) => (t - (times[i] ?? 0)) / 1000);
    // 30 s, then twice as long each time, the last one at the end of the 24 hours.
    expect(delays.slice(0, 5)).toEqual([30, 60, 120, 240, 480]);
    expect(times.at(-1)).toBe(firstFailure + WEBHOOK_RETRY_WINDOW_MS);
    expect(delays.slice(0, -1).every((d, i) => i === 0 || d === 2 * (delays[i - 1] ?? 0))).toBe(
      true,
    );
    expect(receiver.received).toHaveLength(times.length);
    const disabled = await s.store.webhooks.findWebhook(webhook.id);
    expect(disabled?.disabledAt).toBe(firstFailure + WEBHOOK_RETRY_WINDOW_MS);
    expect(disabled?.disabledReason).toBe(
      `deliveries failed for 24 hours since ${new Date(firstFailure).toISOString()} (last: HTTP 503: receiver says 503)`,
    );
    // Disabled: nothing more is sent, whatever changes.
    receiver.fallback = 200;
    await ingest({ big: 'Four', small: 'Eight', other: 'Four' });
    clock += 3_600_000;
    await deliverDue(deps());
    expect(receiver.received).toHaveLength(times.length);
    expect(await s.store.webhooks.listAttempts(webhook.id)).toHaveLength(times.length);
  });

  it('sends a signed test request with no changes, logged as an attempt, changing nothing else', async () => {
    const { webhook, secret } = await create({ kind: 'country', country: 'FR' });
    const attempt = await sendTestRequest(deps(), webhook);
    expect(attempt).toMatchObject({ kind: 'test', status: 200, error: null, changes: 0 });
    const [payload] = await verified(receiver.received, secret);
    expect(payload).toEqual({ webhookId: webhook.id, changes: [] });
    expect(await s.store.webhooks.findWebhook(webhook.id)).toEqual(webhook);
    expect(await s.store.webhooks.listAttempts(webhook.id)).toEqual([attempt]);
  });

  it("logs the text of a receiver's HTML error page, not its markup", async () => {
    const { webhook } = await create({ kind: 'country', country: 'FR' });
    // Python's http.server, as a receiver that takes no POST answers.
    receiver.answers = [
      {
        status: 501,
        html: `<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
        <style type="text/css">body { color: red }</style>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: 501</p>
        <p>Message: Unsupported method (&#x27;POST&#x27;) &amp; more.</p>
    </body>
</html>`,
      },
    ];
    const attempt = await sendTestRequest(deps(), webhook);
    expect(attempt.error).toBe(
      "HTTP 501: Error response Error response Error code: 501 Message: Unsupported method ('POST') & more.",
    );
  });

  it('delivers what remains when records it had not had were pruned, and says so', async () => {
    const { webhook, secret } = await create({ kind: 'channels', channelIds: [SMALL] });
    await ingest({ big: 'Four', small: 'Nine', other: 'Four' });
    const first = webhook.deliveredSeq + 1;
    const newest = (
      await s.store.changes.read({ after: first, limit: 1, country: null, channels: null })
    ).bounds.newest;
    // As a retention prune would leave the log: the oldest record gone, the horizon past it.
    await s.sql(`DELETE FROM changes WHERE seq <= ${first}`);
    await s.sql(`UPDATE changes_horizon SET seq = ${first}`);
    await deliverDue(deps());
    const [payload] = await verified(receiver.received, secret);
    expect(payload?.changes.map((c) => c.seq)).toEqual([first + 1, first + 2]);
    const attempts = await s.store.webhooks.listAttempts(webhook.id);
    expect(attempts.map((a) => a.kind)).toEqual(['delivery', 'note']);
    expect(attempts[1]?.error).toBe(
      `records ${first}–${first} were pruned from the change log (CHANGES_RETENTION_DAYS) before they could be delivered; delivering from ${first + 1} on`,
    );
    expect((await s.store.webhooks.findWebhook(webhook.id))?.deliveredSeq).toBe(newest);
  });

  it("holds an account's deliveries while it may not call the API, and resumes after", async () => {
    const { webhook } = await create({ kind: 'channels', channelIds: [SMALL] });
    await s.store.accounts.updateAccount(accountId, { disabled: true }, clock);
    await ingest({ big: 'Four', small: 'Ten', other: 'Four' });
    expect((await deliverDue(deps())).get(webhook.id)).toBe('paused');
    expect(receiver.received).toHaveLength(0);
    await s.store.accounts.updateAccount(accountId, { disabled: false }, clock);
    clock += 60_000;
    expect((await deliverDue(deps())).get(webhook.id)).toBe('delivered');
    expect(JSON.parse(receiver.received[0]?.body ?? '{}').changes).toHaveLength(3);
  });

  it('connects to the address it checked, and checks the name again before each request', async () => {
    let answer = '127.0.0.1';
    const resolve: Resolver = async () => [{ address: answer, family: 4 }];
    const url = `http://receiver.example:${receiver.port}/hook`;
    const { webhook } = await create({ kind: 'channels', channelIds: [SMALL] }, url, resolve);
    await ingest({ big: 'Four', small: 'Eleven', other: 'Four' });
    expect((await deliverDue(deps({ resolve }))).get(webhook.id)).toBe('delivered');
    // The name only the test's resolver knows reached the local receiver, under its own name.
    expect(receiver.received[0]?.headers.host).toBe(`receiver.example:${receiver.port}`);

    // The name now points into a private network: refused before anything is sent.
    answer = '10.1.2.3';
    await ingest({ big: 'Four', small: 'Twelve', other: 'Four' });
    expect((await deliverDue(deps({ resolve }))).get(webhook.id)).toBe('failed');
    expect(receiver.received).toHaveLength(1);
    const [refused] = await s.store.webhooks.listAttempts(webhook.id);
    expect(refused).toMatchObject({
      status: null,
      error:
        'refused: receiver.example (10.1.2.3) is a private network address: webhooks go to public addresses',
    });
  });
});
