import { OnairError } from './errors.js';
import type { Change } from './types.js';

/** What Onair POSTs to a webhook's URL: the webhook's id and change records, in `seq` order. */
export interface WebhookPayload {
  webhookId: string;
  /** Exactly as `GET /api/v1/changes` gives them; empty in a test request. */
  changes: Change[];
}

/** Why a webhook request was refused by `verifyWebhook`. */
export type WebhookErrorCode =
  /** No `Onair-Signature` header, or one without `t=` and `v1=`. */
  | 'WEBHOOK_SIGNATURE_MISSING'
  /** No `v1` signature matches the body with this secret (wrong secret, or a changed body). */
  | 'WEBHOOK_SIGNATURE_MISMATCH'
  /** Signed too long ago (or ahead): a replay, or a clock far off. */
  | 'WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE'
  /** Signed, but not a webhook payload. */
  | 'WEBHOOK_PAYLOAD_INVALID';

/** A webhook request that failed verification: `status` 0, `code` says why. */
export class WebhookVerificationError extends OnairError {
  override name = 'WebhookVerificationError';
  declare readonly code: WebhookErrorCode;

  constructor(message: string, code: WebhookErrorCode) {
    super(message, 0, code);
  }
}

export interface VerifyWebhookOptions {
  /** How old (or how far ahead) the signed time may be; 300 s by default. */
  toleranceSeconds?: number;
  /** The time to compare with (tests); the clock by default. */
  now?: Date | number;
}

const encoder = new TextEncoder();

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function parseHeader(header: string | null | undefined): { t: number; v1: string[] } {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of (header ?? '').split(',')) {
    const [key, value = ''] = part.trim().split('=', 2) as [string, string?];
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    // Several v1 signatures may come (one per secret while a secret is replaced).
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
  }
  if (t === null || v1.length === 0) {
    throw new WebhookVerificationError(
      'No valid Onair-Signature header: expected "t=<unix seconds>,v1=<hex HMAC-SHA256>"',
      'WEBHOOK_SIGNATURE_MISSING',
    );
  }
  return { t, v1 };
}

/**
 * Checks a webhook request and returns its payload: the `Onair-Signature` header
 * (`t=<unix seconds>,v1=<hex>`) must hold an HMAC-SHA256, keyed with `secret`, of
 * `"<t>.<raw body>"`, and `t` be within `toleranceSeconds` of now. Pass the body exactly as
 * received (the bytes or their text), before any JSON parsing. Throws a
 * `WebhookVerificationError` (an `OnairError`) with a code saying why. The comparison is the
 * platform's (Web Crypto `verify`), which takes the same time whatever the signature; it runs
 * on Node.js 20, Deno, Bun and browsers alike.
 */
export async function verifyWebhook(
  secret: string,
  signatureHeader: string | null | undefined,
  rawBody: string | Uint8Array | ArrayBuffer,
  options: VerifyWebhookOptions = {},
): Promise<WebhookPayload> {
  const { t, v1 } = parseHeader(signatureHeader);
  const body = bytesOf(rawBody);
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  let matched = false;
  for (const signature of v1) {
    if (await globalThis.crypto.subtle.verify('HMAC', key, hexBytes(signature), signed)) {
      matched = true;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError(
      'The Onair-Signature does not match this body and secret',
      'WEBHOOK_SIGNATURE_MISMATCH',
    );
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  if (Math.abs(nowMs / 1000 - t) > tolerance) {
    throw new WebhookVerificationError(
      `The request was signed at ${new Date(t * 1000).toISOString()}, more than ${tolerance} s from now`,
      'WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE',
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    payload = null;
  }
  const shaped = payload as Partial<WebhookPayload> | null;
  if (
    typeof shaped !== 'object' ||
    shaped === null ||
    typeof shaped.webhookId !== 'string' ||
    !Array.isArray(shaped.changes)
  ) {
    throw new WebhookVerificationError(
      'The body is not a webhook payload ({"webhookId", "changes"})',
      'WEBHOOK_PAYLOAD_INVALID',
    );
  }
  return shaped as WebhookPayload;
}
