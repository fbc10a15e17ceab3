import type {
  Webhook,
  WebhookAttempt,
  WebhookAttemptKind,
  WebhookFilter,
} from '../domain/webhook.js';

export interface NewWebhook {
  accountId: string;
  url: string;
  /** Kept as it is: deliveries are signed with it. */
  secret: string;
  filter: WebhookFilter;
  /** The log's newest seq now: a new webhook gets the changes from then on. */
  deliveredSeq: number;
}

/** A webhook as its delivery claimed it, with the secret that signs the request. */
export interface ClaimedWebhook {
  webhook: Webhook;
  secret: string;
}

export interface WebhookClaim {
  holder: string;
  nowMs: number;
  leaseMs: number;
}

/** The state a finished delivery writes back (and frees the lease). */
export type WebhookOutcome = Pick<
  Webhook,
  'deliveredSeq' | 'failures' | 'firstFailureAt' | 'nextAttemptAt' | 'disabledAt' | 'disabledReason'
>;

export type NewWebhookAttempt = WebhookAttempt;

export type { WebhookAttemptKind };

/**
 * Accounts' webhooks, their delivery leases and their attempt logs. A claim is one conditional
 * UPDATE, so of any number of processes over one database exactly one delivers a given
 * webhook at a time, and its batches go out one after the other.
 */
export interface WebhookStore {
  /**
   * Creates a webhook, due at once; throws WebhookLimitError when the account already has
   * MAX_WEBHOOKS_PER_ACCOUNT (checked and inserted in one transaction).
   */
  createWebhook(webhook: NewWebhook, nowMs: number): Promise<Webhook>;
  findWebhook(id: string): Promise<Webhook | null>;
  /** An account's webhooks, oldest first. */
  listWebhooks(accountId: string): Promise<Webhook[]>;
  /** Every webhook, oldest first (the operator's list). */
  listAllWebhooks(): Promise<Webhook[]>;
  /**
   * Turns a disabled webhook back on: due at `nowMs`, its failures forgotten, delivering from
   * where it stopped (`deliveredSeq` kept). False when there is no such webhook or it was not
   * disabled (an enabled one is left as it is, lease and all).
   */
  enableWebhook(id: string, nowMs: number): Promise<boolean>;
  /** Deletes a webhook and its attempts; false when there was none. */
  deleteWebhook(id: string): Promise<boolean>;
  /** The secret that signs a webhook's requests, or null when there is no such webhook. */
  webhookSecret(id: string): Promise<string | null>;
  /**
   * Ids of the webhooks that may have a batch to send at `nowMs`: enabled, not leased, next
   * attempt passed, and not yet at `newestSeq` (the change log's newest record), soonest first.
   */
  dueWebhooks(nowMs: number, newestSeq: number, limit: number): Promise<string[]>;
  /** The earliest next attempt of an enabled webhook whose batch failed, or null. */
  nextRetryAt(): Promise<number | null>;
  /**
   * Takes the webhook's lease when it is enabled, free and due; returns it as claimed, or null
   * when another holder has it (or it is not due, disabled or gone).
   */
  claimWebhook(id: string, claim: WebhookClaim): Promise<ClaimedWebhook | null>;
  /**
   * Writes the outcome of a delivery, frees the lease and logs the attempt (if any), in one
   * transaction, if `holder` still has the lease; false when it was lost.
   */
  finishDelivery(
    id: string,
    holder: string,
    outcome: WebhookOutcome,
    attempt: NewWebhookAttempt | null,
  ): Promise<boolean>;
  /** Frees a lease still held by `holder`, not to be tried before `nextAttemptAt`. */
  releaseWebhook(id: string, holder: string, nextAttemptAt: number): Promise<boolean>;
  /** Logs an attempt outside a delivery (a test request); keeps the last WEBHOOK_ATTEMPTS_KEPT. */
  recordAttempt(attempt: NewWebhookAttempt): Promise<void>;
  /** A webhook's attempts, newest first, at most WEBHOOK_ATTEMPTS_KEPT. */
  listAttempts(webhookId: string): Promise<WebhookAttempt[]>;
}

/** Webhook rows as both engines return them. */
export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  country: string | null;
  channel_ids: string;
  created_at: number;
  delivered_seq: number;
  failures: number;
  first_failure_at: number | null;
  next_attempt_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  claimed_by: string | null;
  claimed_until: number | null;
}

export const WEBHOOK_COLUMNS = `id, account_id, url, country, channel_ids, created_at,
  delivered_seq, failures, first_failure_at, next_attempt_at, disabled_at, disabled_reason,
  claimed_by, claimed_until`;

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    filter:
      row.country === null
        ? { kind: 'channels', channelIds: JSON.parse(row.channel_ids) as string[] }
        : { kind: 'country', country: row.country },
    createdAt: Number(row.created_at),
    deliveredSeq: Number(row.delivered_seq),
    failures: Number(row.failures),
    firstFailureAt: row.first_failure_at === null ? null : Number(row.first_failure_at),
    nextAttemptAt: Number(row.next_attempt_at),
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
    disabledReason: row.disabled_reason,
    claimedBy: row.claimed_by,
    claimedUntil: row.claimed_until === null ? null : Number(row.claimed_until),
  };
}

/** The filter's two columns. */
export function filterColumns(filter: WebhookFilter): {
  country: string | null;
  channelIds: string;
} {
  return filter.kind === 'country'
    ? { country: filter.country, channelIds: '[]' }
    : { country: null, channelIds: JSON.stringify(filter.channelIds) };
}

export interface WebhookAttemptRow {
  webhook_id: string;
  at: number;
  kind: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  changes: number;
  first_seq: number | null;
  last_seq: number | null;
}

export const ATTEMPT_COLUMNS =
  'webhook_id, at, kind, status, error, duration_ms, changes, first_seq, last_seq';

export function toWebhookAttempt(row: WebhookAttemptRow): WebhookAttempt {
  const kind: WebhookAttemptKind =
    row.kind === 'test' ? 'test' : row.kind === 'note' ? 'note' : 'delivery';
  return {
    webhookId: row.webhook_id,
    at: Number(row.at),
    kind,
    status: row.status === null ? null : Number(row.status),
    error: row.error,
    durationMs: Number(row.duration_ms),
    changes: Number(row.changes),
    firstSeq: row.first_seq === null ? null : Number(row.first_seq),
    lastSeq: row.last_seq === null ? null : Number(row.last_seq),
  };
}

export function attemptValues(attempt: NewWebhookAttempt): (string | number | null)[] {
  return [
    attempt.webhookId,
    attempt.at,
    attempt.kind,
    attempt.status,
    attempt.error,
    Math.max(0, Math.round(attempt.durationMs)),
    attempt.changes,
    attempt.firstSeq,
    attempt.lastSeq,
  ];
}
