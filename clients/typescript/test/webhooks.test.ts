import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
// The server's signing and request building, from the repository's sources: the client checks
// what the server really sends.
import { signedRequest } from '../../../src/webhooks/webhook-delivery.js';
import {
  OnairError,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookPayload,
} from '../src/index.js';

const SECRET = 'whsec_Yl2Q0m8y6lq1m2XoYb4i1H0H8M6s0QmBqkq0r9ZQx2E';
const NOW = Date.UTC(2026, 8, 1, 12);
const CHANGE = {
  seq: 41,
  kind: 'programme' as const,
  change: 'added' as const,
  channelId: 'dd41cb78-ddbb-5222-af7d-7173a2d56458',
  programmeId: '1298405571003348172',
  start: '20260901120000 +0000',
  at: '20260901115900 +0000',
};

/** A request as the server signs it at `atMs`. */
const sent = (atMs = NOW, changes = [CHANGE]) => {
  const { body, headers } = signedRequest('hook-1', SECRET, changes, atMs);
  return { body, signature: headers['Onair-Signature'] };
};

async function refused(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect(error).toBeInstanceOf(OnairError);
  expect(error).toMatchObject({ code, status: 0 });
}

describe('verifyWebhook', () => {
  it("accepts the server's signed requests and returns the payload, typed", async () => {
    const { body, signature } = sent();
    const payload: WebhookPayload = await verifyWebhook(SECRET, signature, body, { now: NOW });
    expect(payload).toEqual({ webhookId: 'hook-1', changes: [CHANGE] });
    // The raw bytes do as well as the text, and a test request's empty list too.
    expect(
      await verifyWebhook(SECRET, signature, new TextEncoder().encode(body), { now: NOW }),
    ).toEqual(payload);
    const empty = sent(NOW, []);
    expect(await verifyWebhook(SECRET, empty.signature, empty.body, { now: NOW })).toEqual({
      webhookId: 'hook-1',
      changes: [],
    });
  });

  it('checks the documented recipe: HMAC-SHA256 of "<t>.<raw body>", hex', async () => {
    const body = '{"webhookId":"x","changes":[]}';
    const t = NOW / 1000;
    const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
    expect(await verifyWebhook(SECRET, `t=${t},v1=${v1}`, body, { now: NOW })).toEqual({
      webhookId: 'x',
      changes: [],
    });
    // Another v1 beside the right one (a secret being replaced) is fine.
    expect(
      await verifyWebhook(SECRET, `t=${t}, v1=${'0'.repeat(64)}, v1=${v1}`, body, { now: NOW }),
    ).toMatchObject({ webhookId: 'x' });
  });

  it('refuses a changed body, another secret, a missing or malformed header', async () => {
    const { body, signature } = sent();
    await refused(
      verifyWebhook(SECRET, signature, body.replace('"added"', '"removed"'), { now: NOW }),
      'WEBHOOK_SIGNATURE_MISMATCH',
    );
    await refused(
      verifyWebhook(`${SECRET}x`, signature, body, { now: NOW }),
      'WEBHOOK_SIGNATURE_MISMATCH',
    );
    // The signed time cannot be moved without breaking the signature.
    await refused(
      verifyWebhook(SECRET, signature.replace(/^t=\d+/, `t=${NOW / 1000 + 1}`), body, {
        now: NOW,
      }),
      'WEBHOOK_SIGNATURE_MISMATCH',
    );
    for (const header of [undefined, null, '', 'v1=abc', `t=${NOW / 1000}`, 'garbage']) {
      await refused(verifyWebhook(SECRET, header, body, { now: NOW }), 'WEBHOOK_SIGNATURE_MISSING');
    }
  });

  it('refuses a request signed more than the tolerance away from now (a replay)', async () => {
    const { body, signature } = sent(NOW - 301_000);
    await refused(
      verifyWebhook(SECRET, signature, body, { now: NOW }),
      'WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE',
    );
    expect(
      await verifyWebhook(SECRET, signature, body, { now: NOW, toleranceSeconds: 600 }),
    ).toMatchObject({ webhookId: 'hook-1' });
    const ahead = sent(NOW + 301_000);
    await refused(
      verifyWebhook(SECRET, ahead.signature, ahead.body, { now: new Date(NOW) }),
      'WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE',
    );
  });

  it('refuses a signed body that is not a webhook payload', async () => {
    for (const body of ['not json', '[]', '{"changes":[]}', '{"webhookId":"x"}']) {
      const t = NOW / 1000;
      const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
      await refused(
        verifyWebhook(SECRET, `t=${t},v1=${v1}`, body, { now: NOW }),
        'WEBHOOK_PAYLOAD_INVALID',
      );
    }
  });
});
