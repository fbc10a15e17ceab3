import type { AccountStore } from '../storage/account-store.js';
import type { KeyOwner } from '../domain/account.js';
import type { MaybeAsync } from '../domain/maybe-async.js';
import { setWithin } from '../domain/bounded-map.js';

/** Key owners kept by default: far more keys than one instance sees in a minute. */
export const DEFAULT_KEY_OWNER_CACHE_ENTRIES = 20_000;

/** Finds the owner of a key by its hash, from memory while nothing that decides access changed. */
export interface KeyOwnerCache {
  /**
   * The key's owner (or null for an unknown key) as of auth version `authVersion`: at once when
   * it is held, after the store's read otherwise.
   */
  find(keyHash: string, authVersion: string): MaybeAsync<KeyOwner | null>;
}

/**
 * Owners (and unknown keys) by key hash, each valid while the store's auth version is the one it
 * was read at. Any change to an account or key (a revocation, new paid access, a disabled
 * account, a new key) moves that version, so the next request reads the database again; key use
 * and usage counts do not. Access itself (trial end, `access_until`) is decided per request from
 * the owner's account and the clock. When full, the entry loaded longest ago goes first.
 */
export function createKeyOwnerCache(
  accounts: Pick<AccountStore, 'findKeyOwner'>,
  maxEntries = DEFAULT_KEY_OWNER_CACHE_ENTRIES,
): KeyOwnerCache {
  const entries = new Map<string, { owner: KeyOwner | null; authVersion: string }>();
  return {
    find(keyHash, authVersion) {
      const known = entries.get(keyHash);
      if (known !== undefined && known.authVersion === authVersion) return known.owner;
      return load(keyHash, authVersion);
    },
  };

  async function load(keyHash: string, authVersion: string): Promise<KeyOwner | null> {
    // Read after the version: a change committed in between makes the entry look older than
    // it is, never newer, so it is only read again.
    const owner = await accounts.findKeyOwner(keyHash);
    entries.delete(keyHash);
    setWithin(entries, keyHash, { owner, authVersion }, maxEntries);
    return owner;
  }
}
