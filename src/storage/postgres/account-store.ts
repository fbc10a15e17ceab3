import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import {
  ACCOUNT_COLUMNS,
  emailKey,
  KEY_COLUMNS,
  toAccount,
  toApiKey,
  toAuditEvent,
  type AccountRow,
  type ApiKeyRow,
  type AuditRow,
} from '../rows.js';
import { DuplicateAccountError, UnknownAccountError } from '../errors.js';
import type { Account, AuditEvent, KeyOwner } from '../../domain/account.js';
import type { AccountStore } from '../account-store.js';

/**
 * Accounts, keys, usage and the audit trail over a PostgreSQL pool. `onAuthWrite` runs after
 * every committed write that can change access (accounts, keys), so this instance's caches
 * see it at its next request without waiting for the database's notification.
 */
export function createPostgresAccountStore(
  pool: pg.Pool,
  onAuthWrite: () => void = () => {},
): AccountStore {
  const one = async <T extends pg.QueryResultRow>(sql: string, params: unknown[]) =>
    (await pool.query<T>(sql, params)).rows[0];

  const getAccount = async (id: string): Promise<Account> => {
    const row = await one<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [
      id,
    ]);
    if (row === undefined) throw new UnknownAccountError(`no account with id ${id}`);
    return toAccount(row);
  };

  return {
    async createAccount(account, nowMs) {
      const id = randomUUID();
      try {
        await pool.query(
          `INSERT INTO accounts (id, email, email_key, verified_at, access_until, rate_limit,
             disabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, false, $7, $7)`,
          [
            id,
            account.email.trim(),
            emailKey(account.email),
            account.verifiedAt,
            account.accessUntil,
            account.rateLimit,
            nowMs,
          ],
        );
        onAuthWrite();
      } catch (error) {
        if ((error as { code?: string }).code === '23505') {
          throw new DuplicateAccountError(`an account for ${account.email.trim()} already exists`);
        }
        throw error;
      }
      return getAccount(id);
    },
    async findAccountById(id) {
      const row = await one<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [
        id,
      ]);
      return row === undefined ? null : toAccount(row);
    },
    async findAccountByEmail(email) {
      const row = await one<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email_key = $1`,
        [emailKey(email)],
      );
      return row === undefined ? null : toAccount(row);
    },
    async updateAccount(id, changes, nowMs) {
      const sets: string[] = [];
      const values: unknown[] = [];
      const set = (column: string, value: unknown) => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      if (changes.verifiedAt !== undefined) set('verified_at', changes.verifiedAt);
      if (changes.accessUntil !== undefined) set('access_until', changes.accessUntil);
      if (changes.rateLimit !== undefined) set('rate_limit', changes.rateLimit);
      if (changes.disabled !== undefined) set('disabled', changes.disabled);
      set('updated_at', nowMs);
      values.push(id);
      const { rowCount } = await pool.query(
        `UPDATE accounts SET ${sets.join(', ')} WHERE id = $${values.length}`,
        values,
      );
      onAuthWrite();
      if ((rowCount ?? 0) === 0) throw new UnknownAccountError(`no account with id ${id}`);
      return getAccount(id);
    },
    async markVerified(id, nowMs) {
      await pool.query(
        'UPDATE accounts SET verified_at = $1, updated_at = $1 WHERE id = $2 AND verified_at IS NULL',
        [nowMs, id],
      );
      onAuthWrite();
      return getAccount(id);
    },
    async listAccounts() {
      const { rows } = await pool.query<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY email_key COLLATE "C"`,
      );
      return rows.map(toAccount);
    },
    async createApiKey(key, nowMs) {
      const row = await one<ApiKeyRow>(
        `INSERT INTO api_keys (id, account_id, name, key_hash, prefix, last_four, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${KEY_COLUMNS}`,
        [randomUUID(), key.accountId, key.name, key.keyHash, key.prefix, key.lastFour, nowMs],
      );
      onAuthWrite();
      if (row === undefined) throw new Error('API key vanished after insert');
      return toApiKey(row);
    },
    async findApiKey(id) {
      const row = await one<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
      return row === undefined ? null : toApiKey(row);
    },
    async listApiKeys(accountId) {
      const { rows } = await pool.query<ApiKeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id COLLATE "C"`,
        [accountId],
      );
      return rows.map(toApiKey);
    },
    async revokeApiKey(id, nowMs) {
      await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [
        nowMs,
        id,
      ]);
      onAuthWrite();
      const row = await one<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
      return row === undefined ? null : toApiKey(row);
    },
    async findKeyOwner(keyHash): Promise<KeyOwner | null> {
      const row = await one<AccountRow & { key_id: string; key_revoked_at: number | null }>(
        `SELECT k.id AS key_id, k.revoked_at AS key_revoked_at,
                a.id, a.email, a.verified_at, a.access_until, a.rate_limit, a.disabled, a.created_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
        [keyHash],
      );
      if (row === undefined) return null;
      return { keyId: row.key_id, revoked: row.key_revoked_at !== null, account: toAccount(row) };
    },
    async markKeysUsed(uses) {
      if (uses.length === 0) return;
      // One statement for the batch: a later time never goes back to an earlier one.
      await pool.query(
        `UPDATE api_keys AS k SET last_used_at = GREATEST(COALESCE(k.last_used_at, 0), u.at)
         FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE k.id = u.id`,
        [uses.map((u) => u.keyId), uses.map((u) => u.at)],
      );
    },
    async addUsage(counts) {
      if (counts.length === 0) return;
      await pool.query(
        `INSERT INTO usage_hourly (account_id, hour_start, requests, limited)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
         ON CONFLICT (account_id, hour_start) DO UPDATE SET
           requests = usage_hourly.requests + excluded.requests,
           limited = usage_hourly.limited + excluded.limited`,
        [
          counts.map((c) => c.accountId),
          counts.map((c) => c.hourStart),
          counts.map((c) => c.requests),
          counts.map((c) => c.limited),
        ],
      );
    },
    async usageSince(accountId, sinceMs) {
      const row = await one<{ requests: number; limited: number }>(
        `SELECT COALESCE(SUM(requests), 0)::bigint AS requests, COALESCE(SUM(limited), 0)::bigint AS limited
         FROM usage_hourly WHERE account_id = $1 AND hour_start >= $2`,
        [accountId, sinceMs],
      );
      return row ?? { requests: 0, limited: 0 };
    },
    async recordAudit(event, nowMs): Promise<AuditEvent> {
      // UUID v7 ids sort by creation, so events of the same millisecond keep their order.
      const id = uuidv7();
      await pool.query(
        'INSERT INTO audit_events (id, account_id, at, actor, action, details) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, event.accountId, nowMs, event.actor, event.action, JSON.stringify(event.details)],
      );
      return { id, at: nowMs, ...event };
    },
    async listAudit(accountId) {
      const { rows } = await pool.query<AuditRow>(
        'SELECT * FROM audit_events WHERE account_id = $1 ORDER BY at, id COLLATE "C"',
        [accountId],
      );
      return rows.map(toAuditEvent);
    },
  };
}
