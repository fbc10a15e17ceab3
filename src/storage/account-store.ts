import type { Account, ApiKey, AuditActor, AuditEvent, KeyOwner } from '../domain/account.js';

export interface NewAccount {
  email: string;
  verifiedAt: number | null;
  accessUntil: number | null;
  rateLimit: number | null;
}

export type AccountChanges = Partial<
  Pick<Account, 'verifiedAt' | 'accessUntil' | 'rateLimit' | 'disabled'>
>;

export interface NewApiKey {
  accountId: string;
  name: string;
  keyHash: string;
  prefix: string;
  lastFour: string;
}

export interface NewAuditEvent {
  accountId: string;
  actor: AuditActor;
  action: string;
  details: Record<string, unknown>;
}

/** The moment a key was last seen in use, written in batches off the request path. */
export interface KeyUse {
  keyId: string;
  at: number;
}

/** v1 requests of one account in one clock hour, added up off the request path. */
export interface UsageCount {
  accountId: string;
  /** Start of the hour (epoch ms, a multiple of 3,600,000). */
  hourStart: number;
  requests: number;
  /** Requests answered 429. */
  limited: number;
}

/** Accounts and their API keys. */
export interface AccountStore {
  createAccount(account: NewAccount, nowMs: number): Promise<Account>;
  findAccountById(id: string): Promise<Account | null>;
  findAccountByEmail(email: string): Promise<Account | null>;
  updateAccount(id: string, changes: AccountChanges, nowMs: number): Promise<Account>;
  /**
   * Sets `verifiedAt` to `nowMs` only if the account was never verified (the trial starts at
   * the first verification and never restarts); returns the account as it now is.
   */
  markVerified(id: string, nowMs: number): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  createApiKey(key: NewApiKey, nowMs: number): Promise<ApiKey>;
  findApiKey(id: string): Promise<ApiKey | null>;
  /** An account's keys, oldest first (revoked ones included). */
  listApiKeys(accountId: string): Promise<ApiKey[]>;
  /** Marks a key revoked; returns null when no key has that id. */
  revokeApiKey(id: string, nowMs: number): Promise<ApiKey | null>;
  findKeyOwner(keyHash: string): Promise<KeyOwner | null>;
  /** Records when keys were last used; a later time never goes back to an earlier one. */
  markKeysUsed(uses: readonly KeyUse[]): Promise<void>;
  /** Adds request counts to the per-hour usage of accounts. */
  addUsage(counts: readonly UsageCount[]): Promise<void>;
  /** Sum of an account's usage in the hours starting at or after `sinceMs`. */
  usageSince(accountId: string, sinceMs: number): Promise<{ requests: number; limited: number }>;
  recordAudit(event: NewAuditEvent, nowMs: number): Promise<AuditEvent>;
  /** An account's audit trail, oldest first. */
  listAudit(accountId: string): Promise<AuditEvent[]>;
}
