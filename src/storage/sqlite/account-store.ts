import { randomUUID } from 'node:crypto';
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
import type { Account, KeyOwner } from '../../domain/account.js';
import type {
  AccountChanges,
  AccountStore,
  NewAccount,
  NewApiKey,
  NewAuditEvent,
} from '../account-store.js';
import { DuplicateAccountError, UnknownAccountError } from '../errors.js';
import { withoutWaiting, type SqliteDatabase } from './connection.js';

export function createSqliteAccountStore(db: SqliteDatabase): AccountStore {
  const insertAccount = db.prepare(
    `INSERT INTO accounts (id, email, email_key, verified_at, access_until, rate_limit, disabled,
       created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const accountById = db.prepare<[string], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`,
  );
  const accountByEmail = db.prepare<[string], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email_key = ?`,
  );
  const allAccounts = db.prepare<[], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY email_key`,
  );
  const insertKey = db.prepare(
    `INSERT INTO api_keys (id, account_id, name, key_hash, prefix, last_four, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const keyById = db.prepare<[string], ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`,
  );
  const keysOfAccount = db.prepare<[string], ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`,
  );
  const revokeKey = db.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const keyOwner = db.prepare<
    [string],
    AccountRow & { key_id: string; key_revoked_at: number | null }
  >(
    `SELECT k.id AS key_id, k.revoked_at AS key_revoked_at,
            a.id, a.email, a.verified_at, a.access_until, a.rate_limit, a.disabled, a.created_at
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  );

  const markVerifiedOnce = db.prepare(
    'UPDATE accounts SET verified_at = ?, updated_at = ? WHERE id = ? AND verified_at IS NULL',
  );
  const markKeyUsed = db.prepare(
    'UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?',
  );
  const addUsageRow = db.prepare(
    `INSERT INTO usage_hourly (account_id, hour_start, requests, limited) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, hour_start) DO UPDATE SET
       requests = requests + excluded.requests, limited = limited + excluded.limited`,
  );
  const usageSinceRow = db.prepare<[string, number], { requests: number; limited: number }>(
    `SELECT COALESCE(SUM(requests), 0) AS requests, COALESCE(SUM(limited), 0) AS limited
     FROM usage_hourly WHERE account_id = ? AND hour_start >= ?`,
  );
  const insertAudit = db.prepare(
    'INSERT INTO audit_events (id, account_id, at, actor, action, details) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const auditOfAccount = db.prepare<[string], AuditRow>(
    'SELECT * FROM audit_events WHERE account_id = ? ORDER BY at, id',
  );
  const markKeysUsedTx = db.transaction((uses: readonly { keyId: string; at: number }[]) => {
    for (const use of uses) markKeyUsed.run(use.at, use.keyId);
  });
  const addUsageTx = db.transaction(
    (
      counts: readonly {
        accountId: string;
        hourStart: number;
        requests: number;
        limited: number;
      }[],
    ) => {
      for (const c of counts) addUsageRow.run(c.accountId, c.hourStart, c.requests, c.limited);
    },
  );

  const getAccount = (id: string): Account => {
    const row = accountById.get(id);
    if (row === undefined) throw new UnknownAccountError(`no account with id ${id}`);
    return toAccount(row);
  };

  return {
    async createAccount(account: NewAccount, nowMs: number) {
      const id = randomUUID();
      try {
        insertAccount.run(
          id,
          account.email.trim(),
          emailKey(account.email),
          account.verifiedAt,
          account.accessUntil,
          account.rateLimit,
          nowMs,
          nowMs,
        );
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new DuplicateAccountError(`an account for ${account.email.trim()} already exists`);
        }
        throw error;
      }
      return getAccount(id);
    },
    async findAccountById(id) {
      const row = accountById.get(id);
      return row === undefined ? null : toAccount(row);
    },
    async markVerified(id, nowMs) {
      markVerifiedOnce.run(nowMs, nowMs, id);
      return getAccount(id);
    },
    async findApiKey(id) {
      const row = keyById.get(id);
      return row === undefined ? null : toApiKey(row);
    },
    // Written in the background: they never wait for another connection's write lock (the
    // caller tries again later), as waiting would stop every request of this thread meanwhile.
    async markKeysUsed(uses) {
      withoutWaiting(db, () => markKeysUsedTx(uses));
    },
    async addUsage(counts) {
      withoutWaiting(db, () => addUsageTx(counts));
    },
    async usageSince(accountId, sinceMs) {
      return usageSinceRow.get(accountId, sinceMs) ?? { requests: 0, limited: 0 };
    },
    async recordAudit(event: NewAuditEvent, nowMs) {
      // UUID v7 ids sort by creation, so events of the same millisecond keep their order.
      const id = uuidv7();
      insertAudit.run(
        id,
        event.accountId,
        nowMs,
        event.actor,
        event.action,
        JSON.stringify(event.details),
      );
      return { id, at: nowMs, ...event };
    },
    async listAudit(accountId) {
      return auditOfAccount.all(accountId).map(toAuditEvent);
    },
    async findAccountByEmail(email) {
      const row = accountByEmail.get(emailKey(email));
      return row === undefined ? null : toAccount(row);
    },
    async updateAccount(id, changes: AccountChanges, nowMs) {
      const sets: string[] = [];
      const values: (number | null)[] = [];
      if (changes.verifiedAt !== undefined) {
        sets.push('verified_at = ?');
        values.push(changes.verifiedAt);
      }
      if (changes.accessUntil !== undefined) {
        sets.push('access_until = ?');
        values.push(changes.accessUntil);
      }
      if (changes.rateLimit !== undefined) {
        sets.push('rate_limit = ?');
        values.push(changes.rateLimit);
      }
      if (changes.disabled !== undefined) {
        sets.push('disabled = ?');
        values.push(changes.disabled ? 1 : 0);
      }
      sets.push('updated_at = ?');
      values.push(nowMs);
      const result = db
        .prepare(`UPDATE accounts SET ${sets.join(', ')} WHERE id = ?`)
        .run(...values, id);
      if (result.changes === 0) throw new UnknownAccountError(`no account with id ${id}`);
      return getAccount(id);
    },
    async listAccounts() {
      return allAccounts.all().map(toAccount);
    },
    async createApiKey(key: NewApiKey, nowMs) {
      const id = randomUUID();
      insertKey.run(id, key.accountId, key.name, key.keyHash, key.prefix, key.lastFour, nowMs);
      const row = keyById.get(id);
      if (row === undefined) throw new Error('API key vanished after insert');
      return toApiKey(row);
    },
    async listApiKeys(accountId) {
      return keysOfAccount.all(accountId).map(toApiKey);
    },
    async revokeApiKey(id, nowMs) {
      revokeKey.run(nowMs, id);
      const row = keyById.get(id);
      return row === undefined ? null : toApiKey(row);
    },
    async findKeyOwner(keyHash): Promise<KeyOwner | null> {
      const row = keyOwner.get(keyHash);
      if (row === undefined) return null;
      return { keyId: row.key_id, revoked: row.key_revoked_at !== null, account: toAccount(row) };
    },
  };
}
