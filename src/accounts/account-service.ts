import { decideAccess, trialEnd } from '../domain/access.js';
import { describeApiKey, generateApiKey, hashApiKey } from '../domain/api-key.js';
import { cleanName, nameCharacters } from '../domain/display-text.js';
import { DEFAULT_RATE_LIMIT } from '../domain/rate-window.js';
import type { Account, ApiKey, AuditActor } from '../domain/account.js';
import type { AccountStore } from '../storage/account-store.js';

/** Longest key name kept; names are labels for the holder, not data. */
export const MAX_KEY_NAME_LENGTH = 100;

/**
 * A key name as kept: control characters dropped (a label has no use for them, and PostgreSQL
 * refuses NUL in text), trimmed, cut to MAX_KEY_NAME_LENGTH code points. May be empty.
 */
export function cleanKeyName(text: string): string {
  return cleanName(text, MAX_KEY_NAME_LENGTH);
}

/** A key name's characters as kept, before the cut (domain/display-text.ts). */
export const uncutKeyName = nameCharacters;

/** A newly created key: the only moment the full secret exists outside the client. */
export interface IssuedApiKey {
  key: string;
  record: ApiKey;
}

/** Creates a key for an account, storing only its hash, prefix and last four characters. */
export async function issueApiKey(
  accounts: AccountStore,
  accountId: string,
  name: string,
  nowMs: number,
): Promise<IssuedApiKey> {
  const key = generateApiKey();
  const { prefix, lastFour } = describeApiKey(key);
  const record = await accounts.createApiKey(
    {
      accountId,
      name: cleanKeyName(name),
      keyHash: hashApiKey(key),
      prefix,
      lastFour,
    },
    nowMs,
  );
  return { key, record };
}

/** Issues a key and records who did it in the account's audit trail (never the secret). */
export async function issueAuditedApiKey(
  accounts: AccountStore,
  accountId: string,
  name: string,
  actor: AuditActor,
  nowMs: number,
): Promise<IssuedApiKey> {
  const issued = await issueApiKey(accounts, accountId, name, nowMs);
  await accounts.recordAudit(
    {
      accountId,
      actor,
      action: 'key.created',
      details: { keyId: issued.record.id, name: issued.record.name },
    },
    nowMs,
  );
  return issued;
}

/**
 * Revokes a key (refused from the next request on) and records it, once: revoking a revoked
 * key changes nothing and records nothing. Returns the key as it now is.
 */
export async function revokeAuditedApiKey(
  accounts: AccountStore,
  key: ApiKey,
  actor: AuditActor,
  nowMs: number,
): Promise<ApiKey> {
  if (key.revokedAt !== null) return key;
  const revoked = (await accounts.revokeApiKey(key.id, nowMs)) ?? key;
  await accounts.recordAudit(
    { accountId: key.accountId, actor, action: 'key.revoked', details: { keyId: key.id } },
    nowMs,
  );
  return revoked;
}

/** An account with its access spelled out, as operators and account holders see it. */
export interface AccountStatus {
  id: string;
  email: string;
  verifiedAt: number | null;
  trialEndsAt: number | null;
  accessUntil: number | null;
  /** When access ends: the later of trial end and access_until. */
  effectiveUntil: number | null;
  eligibleNow: boolean;
  /** Why the API refuses the account now (error code), or null when it is eligible. */
  refusal: string | null;
  rateLimit: number;
  rateLimitOverride: number | null;
  disabled: boolean;
  createdAt: number;
}

export function accountStatus(account: Account, nowMs: number): AccountStatus {
  const access = decideAccess(account, nowMs);
  return {
    id: account.id,
    email: account.email,
    verifiedAt: account.verifiedAt,
    trialEndsAt: trialEnd(account.verifiedAt),
    accessUntil: account.accessUntil,
    effectiveUntil: access.until,
    eligibleNow: access.eligible,
    refusal: access.eligible ? null : access.error.code,
    rateLimit: account.rateLimit ?? DEFAULT_RATE_LIMIT,
    rateLimitOverride: account.rateLimit,
    disabled: account.disabled,
    createdAt: account.createdAt,
  };
}
