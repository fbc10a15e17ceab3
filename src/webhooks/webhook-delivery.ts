import { decideAccess } from '../domain/access.js';
import { changeEntry, changesPage, type ChangeEntry } from '../domain/changes.js';
import {
  afterFailure,
  MAX_WEBHOOK_BATCH,
  WEBHOOK_SIGNATURE_HEADER,
  webhookSignature,
  webhookUrlForLogs,
  type Webhook,
  type WebhookAttempt,
} from '../domain/webhook.js';
import type { Store } from '../storage/store.js';
import type { WebhookOutcome } from '../storage/webhook-store.js';
import { postToReceiver, type ReceiverAnswer } from './webhook-request.js';
import {
  checkWebhookTarget,
  systemResolver,
  WebhookUrlError,
  type Resolver,
  type WebhookUrlPolicy,
} from './webhook-target.js';

/** The logging a delivery does (pino's methods). */
export interface DeliveryLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What delivering webhooks needs. */
export interface DeliveryDeps {
  store: Pick<Store, 'webhooks' | 'changes' | 'accounts'>;
  now: () => number;
  log: DeliveryLog;
  /** Names this process as lease holder (host, pid and a random part). */
  holder: string;
  policy: WebhookUrlPolicy;
  timeoutMs: number;
  retryBaseMs: number;
  /** Resolves receivers' names (tests give their own); node:dns `lookup` by default. */
  resolve?: Resolver;
  /** Told the outcome of each delivery the scheduler makes (the server counts them). */
  observe?: (outcome: DeliveryResult) => void;
}

/** A webhook's request body: its id and the records, exactly as `/api/v1/changes` gives them. */
export interface WebhookPayload {
  webhookId: string;
  changes: ChangeEntry[];
}

/** While an account may not call the API its webhooks wait; they are looked at again after. */
export const PAUSED_RECHECK_MS = 60_000;

/** A lease outlasts the longest delivery (the request's timeout) with room for the writes. */
export const leaseMsFor = (timeoutMs: number) => timeoutMs + 30_000;

/** How one claim of a webhook ended. */
export type DeliveryResult =
  'delivered' | 'nothing-new' | 'failed' | 'disabled' | 'skipped-ahead' | 'paused' | 'busy';

/** The request a webhook's receiver gets: body, signature and the other headers. */
export function signedRequest(
  webhookId: string,
  secret: string,
  changes: ChangeEntry[],
  nowMs: number,
) {
  const body = JSON.stringify({ webhookId, changes } satisfies WebhookPayload);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'Onair-Webhooks/1',
    'Onair-Webhook-Id': webhookId,
    [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(secret, Math.floor(nowMs / 1000), body),
  };
  return { body, headers };
}

/** Checks the URL again (its name may point elsewhere now), then sends the signed request. */
async function send(
  deps: DeliveryDeps,
  url: string,
  request: { body: string; headers: Record<string, string> },
): Promise<ReceiverAnswer> {
  const started = deps.now();
  try {
    const target = await checkWebhookTarget(url, deps.policy, deps.resolve ?? systemResolver);
    return await postToReceiver(target, request.body, request.headers, deps.timeoutMs);
  } catch (error) {
    if (!(error instanceof WebhookUrlError)) throw error;
    return { status: null, error: `refused: ${error.message}`, durationMs: deps.now() - started };
  }
}

function outcomeOf(webhook: Webhook, changes: Partial<WebhookOutcome>): WebhookOutcome {
  return {
    deliveredSeq: webhook.deliveredSeq,
    failures: webhook.failures,
    firstFailureAt: webhook.firstFailureAt,
    nextAttemptAt: webhook.nextAttemptAt,
    disabledAt: null,
    disabledReason: null,
    ...changes,
  };
}

/**
 * One delivery of a webhook: claims it (one process at a time), reads its next batch (the
 * records after `deliveredSeq` of its channels, at most MAX_WEBHOOK_BATCH, in seq order) and
 * sends it. 2xx moves `deliveredSeq` past the batch; anything else keeps it, so the same batch
 * (with what was logged since, up to the limit) is sent again on the retry schedule, and after
 * the retry window the webhook is disabled. Nothing new: `deliveredSeq` moves to the newest
 * record looked at and no request is sent. Every request is logged as an attempt.
 */
export async function deliverWebhook(deps: DeliveryDeps, id: string): Promise<DeliveryResult> {
  const { webhooks } = deps.store;
  const claimedAt = deps.now();
  const claimed = await webhooks.claimWebhook(id, {
    holder: deps.holder,
    nowMs: claimedAt,
    leaseMs: leaseMsFor(deps.timeoutMs),
  });
  if (claimed === null) return 'busy';
  const { webhook, secret } = claimed;
  try {
    const account = await deps.store.accounts.findAccountById(webhook.accountId);
    if (account === null || !decideAccess(account, claimedAt).eligible) {
      // No data for an account that may not call the API; the batch waits, nothing is skipped.
      await webhooks.releaseWebhook(id, deps.holder, claimedAt + PAUSED_RECHECK_MS);
      return 'paused';
    }
    const filter = webhook.filter;
    const read = await deps.store.changes.read({
      after: webhook.deliveredSeq,
      limit: MAX_WEBHOOK_BATCH + 1,
      country: filter.kind === 'country' ? filter.country : null,
      channels: filter.kind === 'channels' ? filter.channelIds : null,
    });
    const { bounds } = read;
    if (webhook.deliveredSeq < bounds.horizon || webhook.deliveredSeq > bounds.newest) {
      // Records it has not had were pruned (CHANGES_RETENTION_DAYS), or the log was made anew
      // (a new catalogue): what remains is delivered from the log's start, and the log says so.
      const note =
        webhook.deliveredSeq < bounds.horizon
          ? `records ${webhook.deliveredSeq + 1}–${bounds.horizon} were pruned from the change log (CHANGES_RETENTION_DAYS) before they could be delivered; delivering from ${bounds.horizon + 1} on`
          : `the change log was started anew (its newest record is ${bounds.newest}, this webhook had ${webhook.deliveredSeq}); delivering from its start`;
      deps.log.warn({ webhook: id }, `webhook skips ahead: ${note}`);
      await webhooks.finishDelivery(
        id,
        deps.holder,
        outcomeOf(webhook, { deliveredSeq: bounds.horizon, nextAttemptAt: claimedAt }),
        noteAttempt(id, claimedAt, note),
      );
      return 'skipped-ahead';
    }
    const page = changesPage(read.records, MAX_WEBHOOK_BATCH, bounds.newest);
    if (page.changes.length === 0) {
      await webhooks.finishDelivery(
        id,
        deps.holder,
        outcomeOf(webhook, { deliveredSeq: page.next, nextAttemptAt: claimedAt }),
        null,
      );
      return 'nothing-new';
    }
    const sentAt = deps.now();
    const entries = page.changes.map(changeEntry);
    const answer = await send(deps, webhook.url, signedRequest(id, secret, entries, sentAt));
    const attempt: WebhookAttempt = {
      webhookId: id,
      at: sentAt,
      kind: 'delivery',
      status: answer.status,
      error: answer.error,
      durationMs: answer.durationMs,
      changes: entries.length,
      firstSeq: page.changes[0]?.seq ?? null,
      lastSeq: page.changes.at(-1)?.seq ?? null,
    };
    const log = {
      webhook: id,
      url: webhookUrlForLogs(webhook.url),
      status: answer.status,
      changes: entries.length,
      durationMs: answer.durationMs,
    };
    const finishedAt = deps.now();
    if (answer.error === null) {
      deps.log.info(log, 'webhook delivered');
      await webhooks.finishDelivery(
        id,
        deps.holder,
        outcomeOf(webhook, {
          deliveredSeq: page.next,
          failures: 0,
          firstFailureAt: null,
          nextAttemptAt: finishedAt,
        }),
        attempt,
      );
      return 'delivered';
    }
    const next = afterFailure(webhook, finishedAt, deps.retryBaseMs, answer.error);
    if (next.kind === 'disable') {
      deps.log.warn({ ...log, error: answer.error }, `webhook disabled: ${next.reason}`);
      await webhooks.finishDelivery(
        id,
        deps.holder,
        outcomeOf(webhook, { disabledAt: finishedAt, disabledReason: next.reason }),
        attempt,
      );
      return 'disabled';
    }
    deps.log.warn(
      { ...log, error: answer.error, retryAt: new Date(next.nextAttemptAt).toISOString() },
      'webhook delivery failed; it will be retried',
    );
    await webhooks.finishDelivery(
      id,
      deps.holder,
      outcomeOf(webhook, {
        failures: next.failures,
        firstFailureAt: next.firstFailureAt,
        nextAttemptAt: next.nextAttemptAt,
      }),
      attempt,
    );
    return 'failed';
  } catch (error) {
    // A store that failed mid-way: let the webhook go for a later pass (or another instance).
    await webhooks.releaseWebhook(id, deps.holder, deps.now()).catch(() => undefined);
    throw error;
  }
}

function noteAttempt(webhookId: string, at: number, note: string): WebhookAttempt {
  return {
    webhookId,
    at,
    kind: 'note',
    status: null,
    error: note,
    durationMs: 0,
    changes: 0,
    firstSeq: null,
    lastSeq: null,
  };
}

/**
 * A test request: the webhook's id and no records (`"changes": []`), signed as any delivery,
 * sent now whatever the webhook's state, and logged as an attempt. It changes nothing else.
 */
export async function sendTestRequest(
  deps: Omit<DeliveryDeps, 'holder' | 'retryBaseMs'>,
  webhook: Webhook,
): Promise<WebhookAttempt> {
  const secret = await deps.store.webhooks.webhookSecret(webhook.id);
  if (secret === null) throw new Error(`webhook ${webhook.id} is gone`);
  const at = deps.now();
  const answer = await send(
    { ...deps, holder: '', retryBaseMs: 0 },
    webhook.url,
    signedRequest(webhook.id, secret, [], at),
  );
  const attempt: WebhookAttempt = {
    webhookId: webhook.id,
    at,
    kind: 'test',
    status: answer.status,
    error: answer.error,
    durationMs: answer.durationMs,
    changes: 0,
    firstSeq: null,
    lastSeq: null,
  };
  await deps.store.webhooks.recordAttempt(attempt);
  deps.log.info(
    { webhook: webhook.id, url: webhookUrlForLogs(webhook.url), status: answer.status },
    'webhook test request sent',
  );
  return attempt;
}
