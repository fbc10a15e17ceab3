import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import type { WebhookAttempt } from '../../src/domain/webhook.js';
import { WebhookLimitError } from '../../src/storage/errors.js';
import type { NewWebhook, WebhookOutcome } from '../../src/storage/webhook-store.js';
import { ENGINES, openEngineStore, type EngineStore } from '../helpers/engines.js';

/** The webhook store's rules, on both engines (as test/storage/store-contract.test.ts). */

const NOW = Date.UTC(2026, 8, 1, 12);

const attempt = (webhookId: string, at: number, status: number | null): WebhookAttempt => ({
  webhookId,
  at,
  kind: 'delivery',
  status,
  error: status === 200 ? null : `HTTP ${status}`,
  durationMs: 12,
  changes: 3,
  firstSeq: 1,
  lastSeq: 3,
});

describe.each(ENGINES)('webhooks: %s', (engine) => {
  let s: EngineStore;
  let accountId: string;
  let otherId: string;
  beforeAll(async () => {
    s = await openEngineStore(engine, NOW);
    const { accounts } = s.store;
    accountId = (
      await accounts.createAccount(
        { email: 'hooks@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
        NOW,
      )
    ).id;
    otherId = (
      await accounts.createAccount(
        { email: 'other@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
        NOW,
      )
    ).id;
  });
  afterAll(async () => {
    await s?.dispose();
  });

  const newHook = (over: Partial<NewWebhook> = {}): NewWebhook => ({
    accountId,
    url: 'https://hooks.example.com/onair',
    secret: 'whsec_test',
    filter: { kind: 'channels', channelIds: [channelIdFor('a.uk'), channelIdFor('b.fr')] },
    deliveredSeq: 7,
    ...over,
  });

  const outcome = (over: Partial<WebhookOutcome>): WebhookOutcome => ({
    deliveredSeq: 7,
    failures: 0,
    firstFailureAt: null,
    nextAttemptAt: NOW,
    disabledAt: null,
    disabledReason: null,
    ...over,
  });

  it('keeps webhooks per account: create, find, list, secret, delete; at most 10', async () => {
    const { webhooks } = s.store;
    const first = await webhooks.createWebhook(newHook(), NOW);
    expect(first).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      accountId,
      url: 'https://hooks.example.com/onair',
      filter: { kind: 'channels', channelIds: [channelIdFor('a.uk'), channelIdFor('b.fr')] },
      createdAt: NOW,
      deliveredSeq: 7,
      failures: 0,
      firstFailureAt: null,
      nextAttemptAt: NOW,
      disabledAt: null,
      disabledReason: null,
      claimedBy: null,
      claimedUntil: null,
    });
    // The listed webhook never carries its secret; only webhookSecret gives it.
    expect(JSON.stringify(first)).not.toContain('whsec_test');
    expect(await webhooks.webhookSecret(first.id)).toBe('whsec_test');
    expect(await webhooks.findWebhook(first.id)).toEqual(first);

    const country = await webhooks.createWebhook(
      newHook({ filter: { kind: 'country', country: 'FR' } }),
      NOW + 1,
    );
    expect(country.filter).toEqual({ kind: 'country', country: 'FR' });
    for (let i = 3; i <= 9; i++) await webhooks.createWebhook(newHook(), NOW + i);
    // Two creations at once at 9 webhooks: exactly one gets the tenth place.
    const both = await Promise.allSettled(
      [1, 2].map(() => webhooks.createWebhook(newHook(), NOW + 20)),
    );
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = both.find((r) => r.status === 'rejected');
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(WebhookLimitError);
    const listed = await webhooks.listWebhooks(accountId);
    expect(listed).toHaveLength(10);
    expect(listed.slice(0, 2).map((w) => w.id)).toEqual([first.id, country.id]);
    // The cap is per account.
    const others = await webhooks.createWebhook(newHook({ accountId: otherId }), NOW + 30);
    expect((await webhooks.listAllWebhooks()).map((w) => w.id)).toContain(others.id);
    expect(await webhooks.listWebhooks(otherId)).toEqual([others]);

    await webhooks.recordAttempt(attempt(first.id, NOW, 500));
    expect(await webhooks.deleteWebhook(first.id)).toBe(true);
    expect(await webhooks.deleteWebhook(first.id)).toBe(false);
    expect(await webhooks.findWebhook(first.id)).toBeNull();
    expect(await webhooks.webhookSecret(first.id)).toBeNull();
    // Its attempts went with it.
    expect(await webhooks.listAttempts(first.id)).toEqual([]);
    expect(await webhooks.listWebhooks(accountId)).toHaveLength(9);

    // Deleting the account deletes its webhooks (ON DELETE CASCADE).
    await s.sql(`DELETE FROM webhooks WHERE account_id = '${accountId}'`);
    await s.sql(`DELETE FROM webhooks WHERE account_id = '${otherId}'`);
  });

  it('claims a due webhook once: two claims at once, one wins; the lease ends or is freed', async () => {
    const { webhooks } = s.store;
    const hook = await webhooks.createWebhook(newHook({ deliveredSeq: 3 }), NOW);
    // Due: enabled, not leased, next attempt passed, behind the log's newest record.
    expect(await webhooks.dueWebhooks(NOW, 5, 10)).toEqual([hook.id]);
    expect(await webhooks.dueWebhooks(NOW, 3, 10)).toEqual([]);
    expect(await webhooks.dueWebhooks(NOW - 1, 5, 10)).toEqual([]);

    const claims = await Promise.all(
      ['one', 'two'].map((holder) =>
        webhooks.claimWebhook(hook.id, { holder, nowMs: NOW, leaseMs: 60_000 }),
      ),
    );
    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(1);
    expect(won[0]?.secret).toBe('whsec_test');
    const holder = won[0]?.webhook.claimedBy as string;
    expect(['one', 'two']).toContain(holder);
    expect(won[0]?.webhook.claimedUntil).toBe(NOW + 60_000);
    // Leased: not due, not claimable by anyone else until the lease ends.
    expect(await webhooks.dueWebhooks(NOW + 1000, 5, 10)).toEqual([]);
    expect(
      await webhooks.claimWebhook(hook.id, { holder: 'three', nowMs: NOW + 59_999, leaseMs: 1 }),
    ).toBeNull();
    // A lease that ended (its holder died) is taken over; the old holder can write nothing.
    const taken = await webhooks.claimWebhook(hook.id, {
      holder: 'three',
      nowMs: NOW + 60_000,
      leaseMs: 60_000,
    });
    expect(taken?.webhook.claimedBy).toBe('three');
    expect(await webhooks.finishDelivery(hook.id, holder, outcome({ deliveredSeq: 5 }), null)).toBe(
      false,
    );
    expect(await webhooks.releaseWebhook(hook.id, holder, NOW)).toBe(false);
    expect((await webhooks.findWebhook(hook.id))?.deliveredSeq).toBe(3);
    // Freed by its holder, not before the time it names.
    expect(await webhooks.releaseWebhook(hook.id, 'three', NOW + 90_000)).toBe(true);
    expect(await webhooks.findWebhook(hook.id)).toMatchObject({
      claimedBy: null,
      claimedUntil: null,
      nextAttemptAt: NOW + 90_000,
    });
    expect(
      await webhooks.claimWebhook(hook.id, { holder: 'x', nowMs: NOW + 89_999, leaseMs: 1 }),
    ).toBeNull();
    await webhooks.deleteWebhook(hook.id);
  });

  it('moves delivered_seq only when a delivery says so; failures keep it and schedule a retry', async () => {
    const { webhooks } = s.store;
    const hook = await webhooks.createWebhook(newHook({ deliveredSeq: 10 }), NOW);
    const claim = () =>
      webhooks.claimWebhook(hook.id, { holder: 'h', nowMs: NOW + 5, leaseMs: 1000 });

    expect(await claim()).not.toBeNull();
    expect(
      await webhooks.finishDelivery(
        hook.id,
        'h',
        outcome({ deliveredSeq: 10, failures: 1, firstFailureAt: NOW, nextAttemptAt: NOW + 5 }),
        attempt(hook.id, NOW, 500),
      ),
    ).toBe(true);
    expect(await webhooks.findWebhook(hook.id)).toMatchObject({
      deliveredSeq: 10,
      failures: 1,
      firstFailureAt: NOW,
      nextAttemptAt: NOW + 5,
      claimedBy: null,
    });
    expect(await webhooks.nextRetryAt()).toBe(NOW + 5);

    expect(await claim()).not.toBeNull();
    await webhooks.finishDelivery(
      hook.id,
      'h',
      outcome({ deliveredSeq: 14, nextAttemptAt: NOW + 6 }),
      attempt(hook.id, NOW + 6, 200),
    );
    expect(await webhooks.findWebhook(hook.id)).toMatchObject({
      deliveredSeq: 14,
      failures: 0,
      firstFailureAt: null,
    });
    expect(await webhooks.nextRetryAt()).toBeNull();
    expect((await webhooks.listAttempts(hook.id)).map((a) => a.status)).toEqual([200, 500]);

    // Disabled: never due, never claimed.
    expect(
      await webhooks.claimWebhook(hook.id, { holder: 'h', nowMs: NOW + 6, leaseMs: 1000 }),
    ).not.toBeNull();
    await webhooks.finishDelivery(
      hook.id,
      'h',
      outcome({ deliveredSeq: 14, disabledAt: NOW + 7, disabledReason: 'failed for 24 hours' }),
      null,
    );
    expect(await webhooks.findWebhook(hook.id)).toMatchObject({
      disabledAt: NOW + 7,
      disabledReason: 'failed for 24 hours',
    });
    expect(await webhooks.dueWebhooks(NOW + 10_000, 99, 10)).toEqual([]);
    expect(
      await webhooks.claimWebhook(hook.id, { holder: 'h', nowMs: NOW + 10_000, leaseMs: 1 }),
    ).toBeNull();

    // Turned back on: due at once, failures forgotten, from where it stopped.
    expect(await webhooks.enableWebhook(hook.id, NOW + 20_000)).toBe(true);
    expect(await webhooks.findWebhook(hook.id)).toMatchObject({
      deliveredSeq: 14,
      failures: 0,
      firstFailureAt: null,
      nextAttemptAt: NOW + 20_000,
      disabledAt: null,
      disabledReason: null,
    });
    expect(await webhooks.dueWebhooks(NOW + 20_000, 99, 10)).toEqual([hook.id]);
    // An enabled webhook is left as it is, its lease too; an unknown one is not found.
    const claimed = await webhooks.claimWebhook(hook.id, {
      holder: 'h2',
      nowMs: NOW + 20_000,
      leaseMs: 1000,
    });
    expect(claimed).not.toBeNull();
    expect(await webhooks.enableWebhook(hook.id, NOW + 20_001)).toBe(false);
    expect(await webhooks.findWebhook(hook.id)).toMatchObject({ nextAttemptAt: NOW + 20_000 });
    expect(await webhooks.enableWebhook(randomUUID(), NOW)).toBe(false);
    await webhooks.deleteWebhook(hook.id);
  });

  it('keeps the last 50 attempts, newest first, with what each sent', async () => {
    const { webhooks } = s.store;
    const hook = await webhooks.createWebhook(newHook(), NOW);
    for (let i = 0; i < 55; i++) {
      await webhooks.recordAttempt({ ...attempt(hook.id, NOW + i, i % 2 === 0 ? 200 : null) });
    }
    const kept = await webhooks.listAttempts(hook.id);
    expect(kept).toHaveLength(50);
    expect(kept[0]).toEqual({
      webhookId: hook.id,
      at: NOW + 54,
      kind: 'delivery',
      status: 200,
      error: null,
      durationMs: 12,
      changes: 3,
      firstSeq: 1,
      lastSeq: 3,
    });
    expect(kept.at(-1)?.at).toBe(NOW + 5);
    expect(kept[1]).toMatchObject({ status: null, error: 'HTTP null' });
    // Through a delivery's finish too.
    await webhooks.claimWebhook(hook.id, { holder: 'h', nowMs: NOW, leaseMs: 1000 });
    await webhooks.finishDelivery(hook.id, 'h', outcome({}), {
      ...attempt(hook.id, NOW + 100, null),
      kind: 'note',
    });
    const after = await webhooks.listAttempts(hook.id);
    expect(after).toHaveLength(50);
    expect(after[0]).toMatchObject({ kind: 'note', at: NOW + 100 });
    const rows = await s.sql(
      `SELECT count(*) AS n FROM webhook_attempts WHERE webhook_id = '${hook.id}'`,
    );
    expect(Number(rows[0]?.n)).toBe(50);
  });
});
