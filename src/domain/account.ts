/** Accounts, their API keys and their audit trail. */

export interface Account {
  id: string;
  email: string;
  verifiedAt: number | null;
  accessUntil: number | null;
  /** Per-account requests per second; null means the default. */
  rateLimit: number | null;
  disabled: boolean;
  createdAt: number;
}

export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  lastFour: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** What the auth check needs for one request, found by the key's hash. */
export interface KeyOwner {
  keyId: string;
  revoked: boolean;
  account: Account;
}

/** Who made a change recorded in the audit trail. */
export type AuditActor = 'operator' | 'account' | 'system';

/** One recorded change to an account (operator CLI, the account holder, or the system). */
export interface AuditEvent {
  id: string;
  accountId: string;
  at: number;
  actor: AuditActor;
  /** What happened, e.g. `account.created`, `access.granted`, `key.revoked`, `email.verified`. */
  action: string;
  /** The values that changed, as plain JSON (never a key secret or a token). */
  details: Record<string, unknown>;
}
