import type { LinkPurpose, SessionRecord, SignInStore } from '../sign-in-store.js';
import type { SqliteDatabase } from './connection.js';

interface SessionRow {
  account_id: string;
  created_at: number;
  expires_at: number;
}

export function createSqliteSignInStore(db: SqliteDatabase): SignInStore {
  const insertLink = db.prepare(
    `INSERT INTO sign_in_links (token_hash, purpose, email, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const liveLink = db.prepare<[string, string, number], { email: string }>(
    `SELECT email FROM sign_in_links
     WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?`,
  );
  // One statement marks the link used and returns it, so two confirmations cannot both win.
  const useLink = db.prepare<[number, string, string, number], { email: string }>(
    `UPDATE sign_in_links SET used_at = ?
     WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
     RETURNING email`,
  );
  const insertSession = db.prepare(
    'INSERT INTO sessions (session_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  const liveSession = db.prepare<[string, number], SessionRow>(
    'SELECT account_id, created_at, expires_at FROM sessions WHERE session_hash = ? AND expires_at > ?',
  );
  const deleteSessionRow = db.prepare('DELETE FROM sessions WHERE session_hash = ?');
  const deleteSessionsOf = db.prepare('DELETE FROM sessions WHERE account_id = ?');
  const deleteOldLinks = db.prepare('DELETE FROM sign_in_links WHERE expires_at <= ?');
  const deleteOldSessions = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');

  return {
    async createLink(link, nowMs) {
      insertLink.run(link.tokenHash, link.purpose, link.email, nowMs, link.expiresAt);
    },
    async findLink(tokenHash, purpose: LinkPurpose, nowMs) {
      return liveLink.get(tokenHash, purpose, nowMs) ?? null;
    },
    async consumeLink(tokenHash, purpose: LinkPurpose, nowMs) {
      return useLink.get(nowMs, tokenHash, purpose, nowMs) ?? null;
    },
    async createSession(sessionHash, accountId, expiresAt, nowMs) {
      insertSession.run(sessionHash, accountId, nowMs, expiresAt);
    },
    async findSession(sessionHash, nowMs): Promise<SessionRecord | null> {
      const row = liveSession.get(sessionHash, nowMs);
      if (row === undefined) return null;
      return { accountId: row.account_id, createdAt: row.created_at, expiresAt: row.expires_at };
    },
    async deleteSession(sessionHash) {
      deleteSessionRow.run(sessionHash);
    },
    async deleteAccountSessions(accountId) {
      return deleteSessionsOf.run(accountId).changes;
    },
    async deleteExpired(nowMs) {
      deleteOldLinks.run(nowMs);
      deleteOldSessions.run(nowMs);
    },
  };
}
