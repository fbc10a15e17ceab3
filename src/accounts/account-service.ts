import { decideAccess, trialEnd } from '../domain/access.js';
import { describeApiKey, generateApiKey, hashApiKey } from '../domain/api-key.js';
import { DEFAULT_RATE_LIMIT } from '../domain/rate-window.js';
import type { Account, AccountStore, ApiKey } from '../storage/types.js';

/** Longest key name kept; names are labels for the holder, not data. */
export const MAX_KEY_NAME_LENGTH = 100;

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
      name: name.slice(0, MAX_KEY_NAME_LENGTH),
      keyHash: hashApiKey(key),
      prefix,
      lastFour,
    },
    nowMs,
  );
  return { key, record };
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
