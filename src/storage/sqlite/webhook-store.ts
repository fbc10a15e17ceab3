import { randomUUID } from 'node:crypto';
import { MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_ATTEMPTS_KEPT } from '../../domain/webhook.js';
import { WebhookLimitError } from '../errors.js';
import {
  ATTEMPT_COLUMNS,
  attemptValues,
  filterColumns,
  toWebhook,
  toWebhookAttempt,
  WEBHOOK_COLUMNS,
  type NewWebhookAttempt,
  type WebhookAttemptRow,
  type WebhookRow,
  type WebhookStore,
} from '../webhook-store.js';
import type { SqliteDatabase } from './connection.js';

/**
 * Webhooks in the accounts file. SQLite runs one write at a time, so the claim's conditional
 * UPDATE lets exactly one process (the server, another server, a command) take a lease.
 */
export function createSqliteWebhookStore(db: SqliteDatabase): WebhookStore {
  const countOfAccount = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM webhooks WHERE account_id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO webhooks (id, account_id, url, secret, country, channel_ids, created_at,
       delivered_seq, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare<[string], WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`,
  );
  const ofAccount = db.prepare<[string], WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = ? ORDER BY created_at, id`,
  );
  const all = db.prepare<[], WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id`,
  );
  const remove = db.prepare<[string]>('DELETE FROM webhooks WHERE id = ?');
  const enable = db.prepare<[number, string]>(
    `UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failures = 0,
       first_failure_at = NULL, next_attempt_at = ?
     WHERE id = ? AND disabled_at IS NOT NULL`,
  );
  const secretOf = db.prepare<[string], string>('SELECT secret FROM webhooks WHERE id = ?').pluck();
  const due = db
    .prepare<[number, number, number, number], string>(
      `SELECT id FROM webhooks
       WHERE disabled_at IS NULL AND next_attempt_at <= ?
         AND (claimed_until IS NULL OR claimed_until <= ?) AND delivered_seq <> ?
       ORDER BY next_attempt_at, id LIMIT ?`,
    )
    .pluck();
  const nextRetry = db
    .prepare<[], number | null>(
      `SELECT min(next_attempt_at) FROM webhooks WHERE disabled_at IS NULL AND failures > 0`,
    )
    .pluck();
  const claim = db.prepare<
    [string, number, string, number, number],
    WebhookRow & { secret: string }
  >(
    `UPDATE webhooks SET claimed_by = ?, claimed_until = ?
     WHERE id = ? AND disabled_at IS NULL AND next_attempt_at <= ?
       AND (claimed_until IS NULL OR claimed_until <= ?)
     RETURNING ${WEBHOOK_COLUMNS}, secret`,
  );
  const finish = db.prepare(
    `UPDATE webhooks SET delivered_seq = ?, failures = ?, first_failure_at = ?,
       next_attempt_at = ?, disabled_at = ?, disabled_reason = ?, claimed_by = NULL,
       claimed_until = NULL
     WHERE id = ? AND claimed_by = ?`,
  );
  const release = db.prepare(
    `UPDATE webhooks SET next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL
     WHERE id = ? AND claimed_by = ?`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
     WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?)`,
  );
  const pruneAttempts = db.prepare<[string, string]>(
    `DELETE FROM webhook_attempts WHERE webhook_id = ? AND id NOT IN (
       SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC
       LIMIT ${WEBHOOK_ATTEMPTS_KEPT})`,
  );
  const attemptsOf = db.prepare<[string], WebhookAttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC
     LIMIT ${WEBHOOK_ATTEMPTS_KEPT}`,
  );

  const createTx = db.transaction((values: unknown[], accountId: string) => {
    if ((countOfAccount.get(accountId)?.n ?? 0) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new WebhookLimitError(`an account holds at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`);
    }
    insert.run(...values);
  });
  const logAttempt = (attempt: NewWebhookAttempt) => {
    insertAttempt.run(...attemptValues(attempt), attempt.webhookId);
    pruneAttempts.run(attempt.webhookId, attempt.webhookId);
  };
  const finishTx = db.transaction(
    (values: unknown[], attempt: NewWebhookAttempt | null): boolean => {
      if (finish.run(...values).changes === 0) return false;
      if (attempt !== null) logAttempt(attempt);
      return true;
    },
  );
  const recordTx = db.transaction(logAttempt);

  const find = (id: string) => {
    const row = byId.get(id);
    return row === undefined ? null : toWebhook(row);
  };

  return {
    async createWebhook(webhook, nowMs) {
      const id = randomUUID();
      const { country, channelIds } = filterColumns(webhook.filter);
      createTx.immediate(
        [
          id,
          webhook.accountId,
          webhook.url,
          webhook.secret,
          country,
          channelIds,
          nowMs,
          webhook.deliveredSeq,
          nowMs,
        ],
        webhook.accountId,
      );
      const created = find(id);
      if (created === null) throw new Error('webhook vanished after insert');
      return created;
    },
    async findWebhook(id) {
      return find(id);
    },
    async listWebhooks(accountId) {
      return ofAccount.all(accountId).map(toWebhook);
    },
    async listAllWebhooks() {
      return all.all().map(toWebhook);
    },
    async enableWebhook(id, nowMs) {
      return enable.run(nowMs, id).changes > 0;
    },
    async deleteWebhook(id) {
      return remove.run(id).changes > 0;
    },
    async webhookSecret(id) {
      return secretOf.get(id) ?? null;
    },
    async dueWebhooks(nowMs, newestSeq, limit) {
      return due.all(nowMs, nowMs, newestSeq, limit);
    },
    async nextRetryAt() {
      return nextRetry.get() ?? null;
    },
    async claimWebhook(id, { holder, nowMs, leaseMs }) {
      const row = claim.get(holder, nowMs + leaseMs, id, nowMs, nowMs);
      return row === undefined ? null : { webhook: toWebhook(row), secret: row.secret };
    },
    async finishDelivery(id, holder, outcome, attempt) {
      return finishTx.immediate(
        [
          outcome.deliveredSeq,
          outcome.failures,
          outcome.firstFailureAt,
          outcome.nextAttemptAt,
          outcome.disabledAt,
          outcome.disabledReason,
          id,
          holder,
        ],
        attempt,
      );
    },
    async releaseWebhook(id, holder, nextAttemptAt) {
      return release.run(nextAttemptAt, id, holder).changes > 0;
    },
    async recordAttempt(attempt) {
      recordTx.immediate(attempt);
    },
    async listAttempts(webhookId) {
      return attemptsOf.all(webhookId).map(toWebhookAttempt);
    },
  };
}
