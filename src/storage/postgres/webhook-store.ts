import { randomUUID } from 'node:crypto';
import type pg from 'pg';
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

type Queryable = Pick<pg.PoolClient, 'query'>;

/** Runs `work` in a transaction on a connection of its own. */
async function inTransaction<T>(pool: pg.Pool, work: (client: Queryable) => Promise<T>) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function logAttempt(client: Queryable, attempt: NewWebhookAttempt): Promise<void> {
  // A webhook deleted meanwhile has no log to write to.
  await client.query(
    `INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS})
     SELECT $1::text, $2::bigint, $3::text, $4::integer, $5::text, $6::integer, $7::integer,
       $8::bigint, $9::bigint WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = $1)`,
    attemptValues(attempt),
  );
  await client.query(
    `DELETE FROM webhook_attempts WHERE webhook_id = $1 AND id NOT IN (
       SELECT id FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id DESC
       LIMIT ${WEBHOOK_ATTEMPTS_KEPT})`,
    [attempt.webhookId],
  );
}

/**
 * Webhooks over a PostgreSQL pool. A claim is one conditional UPDATE: when two instances claim
 * at once, the second waits for the first's row lock, re-checks the condition against the row
 * as the first left it, and finds the lease taken; so exactly one delivers.
 */
export function createPostgresWebhookStore(pool: pg.Pool): WebhookStore {
  const find = async (id: string) => {
    const { rows } = await pool.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`,
      [id],
    );
    return rows[0] === undefined ? null : toWebhook(rows[0]);
  };

  return {
    async createWebhook(webhook, nowMs) {
      const id = randomUUID();
      const { country, channelIds } = filterColumns(webhook.filter);
      await inTransaction(pool, async (client) => {
        // The account's row lock makes two creations of one account take turns at the cap.
        await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [webhook.accountId]);
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM webhooks WHERE account_id = $1',
          [webhook.accountId],
        );
        if (Number(rows[0]?.n ?? 0) >= MAX_WEBHOOKS_PER_ACCOUNT) {
          throw new WebhookLimitError(
            `an account holds at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`,
          );
        }
        await client.query(
          `INSERT INTO webhooks (id, account_id, url, secret, country, channel_ids, created_at,
             delivered_seq, next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7)`,
          [
            id,
            webhook.accountId,
            webhook.url,
            webhook.secret,
            country,
            channelIds,
            nowMs,
            webhook.deliveredSeq,
          ],
        );
      });
      const created = await find(id);
      if (created === null) throw new Error('webhook vanished after insert');
      return created;
    },
    findWebhook: find,
    async listWebhooks(accountId) {
      const { rows } = await pool.query<WebhookRow>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1
         ORDER BY created_at, id COLLATE "C"`,
        [accountId],
      );
      return rows.map(toWebhook);
    },
    async listAllWebhooks() {
      const { rows } = await pool.query<WebhookRow>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id COLLATE "C"`,
      );
      return rows.map(toWebhook);
    },
    async enableWebhook(id, nowMs) {
      const { rowCount } = await pool.query(
        `UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failures = 0,
           first_failure_at = NULL, next_attempt_at = $1
         WHERE id = $2 AND disabled_at IS NOT NULL`,
        [nowMs, id],
      );
      return (rowCount ?? 0) > 0;
    },
    async deleteWebhook(id) {
      const { rowCount } = await pool.query('DELETE FROM webhooks WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async webhookSecret(id) {
      const { rows } = await pool.query<{ secret: string }>(
        'SELECT secret FROM webhooks WHERE id = $1',
        [id],
      );
      return rows[0]?.secret ?? null;
    },
    async dueWebhooks(nowMs, newestSeq, limit) {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM webhooks
         WHERE disabled_at IS NULL AND next_attempt_at <= $1
           AND (claimed_until IS NULL OR claimed_until <= $1) AND delivered_seq <> $2
         ORDER BY next_attempt_at, id COLLATE "C" LIMIT $3`,
        [nowMs, newestSeq, limit],
      );
      return rows.map((row) => row.id);
    },
    async nextRetryAt() {
      const { rows } = await pool.query<{ at: number | null }>(
        'SELECT min(next_attempt_at) AS at FROM webhooks WHERE disabled_at IS NULL AND failures > 0',
      );
      const at = rows[0]?.at;
      return at === null || at === undefined ? null : Number(at);
    },
    async claimWebhook(id, { holder, nowMs, leaseMs }) {
      const { rows } = await pool.query<WebhookRow & { secret: string }>(
        `UPDATE webhooks SET claimed_by = $2, claimed_until = $4
         WHERE id = $1 AND disabled_at IS NULL AND next_attempt_at <= $3
           AND (claimed_until IS NULL OR claimed_until <= $3)
         RETURNING ${WEBHOOK_COLUMNS}, secret`,
        [id, holder, nowMs, nowMs + leaseMs],
      );
      const row = rows[0];
      return row === undefined ? null : { webhook: toWebhook(row), secret: row.secret };
    },
    async finishDelivery(id, holder, outcome, attempt) {
      return inTransaction(pool, async (client) => {
        const { rowCount } = await client.query(
          `UPDATE webhooks SET delivered_seq = $3, failures = $4, first_failure_at = $5,
             next_attempt_at = $6, disabled_at = $7, disabled_reason = $8, claimed_by = NULL,
             claimed_until = NULL
           WHERE id = $1 AND claimed_by = $2`,
          [
            id,
            holder,
            outcome.deliveredSeq,
            outcome.failures,
            outcome.firstFailureAt,
            outcome.nextAttemptAt,
            outcome.disabledAt,
            outcome.disabledReason,
          ],
        );
        if ((rowCount ?? 0) === 0) return false;
        if (attempt !== null) await logAttempt(client, attempt);
        return true;
      });
    },
    async releaseWebhook(id, holder, nextAttemptAt) {
      const { rowCount } = await pool.query(
        `UPDATE webhooks SET next_attempt_at = $3, claimed_by = NULL, claimed_until = NULL
         WHERE id = $1 AND claimed_by = $2`,
        [id, holder, nextAttemptAt],
      );
      return (rowCount ?? 0) > 0;
    },
    async recordAttempt(attempt) {
      await inTransaction(pool, (client) => logAttempt(client, attempt));
    },
    async listAttempts(webhookId) {
      const { rows } = await pool.query<WebhookAttemptRow>(
        `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id DESC
         LIMIT ${WEBHOOK_ATTEMPTS_KEPT}`,
        [webhookId],
      );
      return rows.map(toWebhookAttempt);
    },
  };
}
