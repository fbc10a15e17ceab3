import type { Account, ApiKey } from '../domain/account.js';
import type { Store } from '../storage/store.js';
import { CliError, isoOrNull } from './cli-context.js';

/** What the `accounts` and `keys` commands both use: finding an account, showing its keys. */

/** Finds an account by e-mail or fails with a message naming the address. */
export async function requireAccount(store: Store, email: string): Promise<Account> {
  const account = await store.accounts.findAccountByEmail(email);
  if (account === null) throw new CliError(`no account with e-mail ${email}`);
  return account;
}

/** A key as listed: never the secret, only what identifies it. */
export function apiKeyJson(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    lastFour: key.lastFour,
    display: `${key.prefix}…${key.lastFour}`,
    status: key.revokedAt === null ? 'active' : 'revoked',
    createdAt: isoOrNull(key.createdAt),
    lastUsedAt: isoOrNull(key.lastUsedAt),
    revokedAt: isoOrNull(key.revokedAt),
  };
}

export function formatKeyLines(keys: ApiKey[]): string[] {
  return keys.map(
    (k) =>
      `${k.id}  ${k.prefix}…${k.lastFour}  ${JSON.stringify(k.name)}  created ${isoOrNull(k.createdAt)}` +
      (k.lastUsedAt === null ? '  never used' : `  last used ${isoOrNull(k.lastUsedAt)}`) +
      (k.revokedAt === null ? '' : `  REVOKED ${isoOrNull(k.revokedAt)}`),
  );
}
