import { createHmac, randomBytes } from 'node:crypto';
import { isValidCountryCode } from './country.js';
import { MAX_CHANGES_LIMIT } from './changes.js';

/**
 * Webhooks (issue 25): an account's URL that Onair POSTs the change records of its channels to
 * after each ingest, signed with the webhook's secret. Pure rules: what a webhook is, its filter,
 * its secret and signature, and when a failed batch is tried again. Delivery is src/webhooks/.
 */

export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
export const MAX_WEBHOOK_CHANNELS = 100;
/** Most records one request carries (as many as one page of `/api/v1/changes`). */
export const MAX_WEBHOOK_BATCH = MAX_CHANGES_LIMIT;
/** Attempts kept per webhook: older ones are dropped as new ones are logged. */
export const WEBHOOK_ATTEMPTS_KEPT = 50;
/** A batch that keeps failing is tried for this long after its first failure, then disabled. */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 3_600_000;
/** First retry after this long, then twice as long each time (WEBHOOK_RETRY_BASE_SECONDS). */
export const DEFAULT_WEBHOOK_RETRY_BASE_MS = 30_000;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const WEBHOOK_SIGNATURE_HEADER = 'Onair-Signature';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Whose changes a webhook gets: chosen channels, or a country's (its channels at each read). */
export type WebhookFilter =
  { kind: 'channels'; channelIds: readonly string[] } | { kind: 'country'; country: string };

export interface Webhook {
  id: string;
  accountId: string;
  url: string;
  filter: WebhookFilter;
  createdAt: number;
  /** The last change seq delivered or passed over: the next batch starts after it. */
  deliveredSeq: number;
  /** Failed attempts of the batch now waiting (0 when none failed). */
  failures: number;
  /** When the batch now waiting first failed, or null. */
  firstFailureAt: number | null;
  /** Not tried before this time (epoch ms). */
  nextAttemptAt: number;
  disabledAt: number | null;
  disabledReason: string | null;
  /** The process delivering it now, and until when its lease holds. */
  claimedBy: string | null;
  claimedUntil: number | null;
}

/** What an attempt was: a batch of records, a test request, or a note without a request. */
export type WebhookAttemptKind = 'delivery' | 'test' | 'note';

export interface WebhookAttempt {
  webhookId: string;
  at: number;
  kind: WebhookAttemptKind;
  /** The receiver's HTTP status; null when there was none (refused, network error, timeout). */
  status: number | null;
  /** Why it failed (or what the note says); null on success. */
  error: string | null;
  durationMs: number;
  /** Records sent. */
  changes: number;
  /** The seq of the first and last record sent, or null when none were. */
  firstSeq: number | null;
  lastSeq: number | null;
}

/** A setting that cannot be kept; the message says which and why, for pages and the CLI. */
export class WebhookSettingsError extends Error {
  override name = 'WebhookSettingsError';
}

/** A country (valid code, upper-case) or 1 to MAX_WEBHOOK_CHANNELS channels, each once. */
export function checkWebhookFilter(filter: WebhookFilter): WebhookFilter {
  if (filter.kind === 'country') {
    if (!isValidCountryCode(filter.country)) {
      throw new WebhookSettingsError(`"${filter.country}" is not a country code`);
    }
    return { kind: 'country', country: filter.country.toUpperCase() };
  }
  const channelIds = [...new Set(filter.channelIds.map((id) => id.trim().toLowerCase()))];
  if (channelIds.length === 0) throw new WebhookSettingsError('pick at least one channel');
  if (channelIds.length > MAX_WEBHOOK_CHANNELS) {
    throw new WebhookSettingsError(`a webhook follows at most ${MAX_WEBHOOK_CHANNELS} channels`);
  }
  return { kind: 'channels', channelIds };
}

/**
 * The URL as written, checked for what needs no network: absolute, `https:` (or `http:`, which
 * the delivery rules allow only to this machine), no user name or password (they would end up
 * in logs and pages), no fragment, at most MAX_WEBHOOK_URL_LENGTH characters.
 */
export function parseWebhookUrl(text: string): URL {
  const trimmed = text.trim();
  if (trimmed === '') throw new WebhookSettingsError('give the URL to send the changes to');
  if (trimmed.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new WebhookSettingsError(
      `a webhook URL has at most ${MAX_WEBHOOK_URL_LENGTH} characters`,
    );
  }
  if (!URL.canParse(trimmed)) throw new WebhookSettingsError('the URL is not a valid absolute URL');
  const url = new URL(trimmed);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookSettingsError('a webhook URL must start with https://');
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebhookSettingsError(
      'a webhook URL may not hold a user name or password: check the Onair-Signature header instead',
    );
  }
  if (url.hash !== '') throw new WebhookSettingsError('a webhook URL may not have a #fragment');
  return url;
}

/** A new secret: 32 random bytes, base64url, after a prefix that says what it is. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * The `Onair-Signature` header of a body sent at `timestampSeconds`, as Stripe signs:
 * `t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the secret's UTF-8 bytes.
 * The time is signed too, so a receiver can refuse an old request replayed.
 */
export function webhookSignature(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/** What a failure of the waiting batch leads to: another try at a time, or the end. */
export type AfterFailure =
  | { kind: 'retry'; failures: number; firstFailureAt: number; nextAttemptAt: number }
  | { kind: 'disable'; reason: string };

/**
 * The retry schedule of a batch that failed at `nowMs`: first retry `baseMs` later, then twice
 * as long each time (30 s, 60 s, 120 s, … by default), the last one at the end of the window
 * (24 hours after the batch first failed); a failure at or after that end disables the webhook.
 */
export function afterFailure(
  state: Pick<Webhook, 'failures' | 'firstFailureAt'>,
  nowMs: number,
  baseMs: number,
  error: string,
): AfterFailure {
  const firstFailureAt = state.firstFailureAt ?? nowMs;
  const windowEnd = firstFailureAt + WEBHOOK_RETRY_WINDOW_MS;
  if (nowMs >= windowEnd) {
    return {
      kind: 'disable',
      reason: `deliveries failed for 24 hours since ${new Date(firstFailureAt).toISOString()} (last: ${error})`,
    };
  }
  const failures = state.failures + 1;
  // 2^40 times any base is far past the window: no need to go higher (or to Infinity).
  const delay = baseMs * 2 ** Math.min(failures - 1, 40);
  return {
    kind: 'retry',
    failures,
    firstFailureAt,
    nextAttemptAt: Math.min(nowMs + delay, windowEnd),
  };
}

/** How a webhook stands, in the words the account page and the CLI use. */
export type WebhookState =
  | { kind: 'active' }
  | { kind: 'retrying'; since: number; failures: number; nextAttemptAt: number }
  | { kind: 'disabled'; at: number; reason: string };

export function webhookState(webhook: Webhook): WebhookState {
  if (webhook.disabledAt !== null) {
    return { kind: 'disabled', at: webhook.disabledAt, reason: webhook.disabledReason ?? '' };
  }
  if (webhook.firstFailureAt !== null) {
    return {
      kind: 'retrying',
      since: webhook.firstFailureAt,
      failures: webhook.failures,
      nextAttemptAt: webhook.nextAttemptAt,
    };
  }
  return { kind: 'active' };
}

/** The URL as logs show it: scheme, host and path, no query (it may carry a receiver's token). */
export function webhookUrlForLogs(url: string): string {
  if (!URL.canParse(url)) return '[invalid URL]';
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search === '' ? '' : '?…'}`;
}
