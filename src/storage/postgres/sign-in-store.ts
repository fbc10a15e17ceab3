import type pg from 'pg';
import type { SignInStore } from '../sign-in-store.js';

export function createPostgresSignInStore(pool: pg.Pool): SignInStore {
  return {
    async createLink(link, nowMs) {
      await pool.query(
        `INSERT INTO sign_in_links (token_hash, purpose, email, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [link.tokenHash, link.purpose, link.email, nowMs, link.expiresAt],
      );
    },
    async findLink(tokenHash, purpose, nowMs) {
      const { rows } = await pool.query<{ email: string }>(
        `SELECT email FROM sign_in_links
         WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3`,
        [tokenHash, purpose, nowMs],
      );
      return rows[0] ?? null;
    },
    async consumeLink(tokenHash, purpose, nowMs) {
      // One statement marks the link used and returns it, so two confirmations cannot both win.
      const { rows } = await pool.query<{ email: string }>(
        `UPDATE sign_in_links SET used_at = $4
         WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
         RETURNING email`,
        [tokenHash, purpose, nowMs, nowMs],
      );
      return rows[0] ?? null;
    },
    async createSession(sessionHash, accountId, expiresAt, nowMs) {
      await pool.query(
        'INSERT INTO sessions (session_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
        [sessionHash, accountId, nowMs, expiresAt],
      );
    },
    async findSession(sessionHash, nowMs) {
      const { rows } = await pool.query<{
        account_id: string;
        created_at: number;
        expires_at: number;
      }>(
        'SELECT account_id, created_at, expires_at FROM sessions WHERE session_hash = $1 AND expires_at > $2',
        [sessionHash, nowMs],
      );
      const row = rows[0];
      return row === undefined
        ? null
        : { accountId: row.account_id, createdAt: row.created_at, expiresAt: row.expires_at };
    },
    async deleteSession(sessionHash) {
      await pool.query('DELETE FROM sessions WHERE session_hash = $1', [sessionHash]);
    },
    async deleteAccountSessions(accountId) {
      const { rowCount } = await pool.query('DELETE FROM sessions WHERE account_id = $1', [
        accountId,
      ]);
      return rowCount ?? 0;
    },
    async deleteExpired(nowMs) {
      await pool.query('DELETE FROM sign_in_links WHERE expires_at <= $1', [nowMs]);
      await pool.query('DELETE FROM sessions WHERE expires_at <= $1', [nowMs]);
    },
  };
}
