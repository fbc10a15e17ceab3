/**
 * Secrets shown once (a new API key, a feed's new address), held in this process's memory
 * between the POST that made one and the GET it redirects to, which takes it: a reload of that
 * page, the back button or a second tab finds nothing, and nothing is sent to the form twice.
 *
 * Held per session and per thing (`key:<id>`, `feed:<id>`), so two tabs making two keys each
 * show their own. Memory, not the database: the plaintext of a key or token is never written
 * anywhere (the store keeps only hashes). The price, in scaled mode, is that the redirect must
 * reach the instance that answered the POST (docs/operations.md); another instance shows the
 * account with a notice instead, and the key can be revoked and made again.
 */

/** How long a secret waits for its page: the redirect is followed at once, or never. */
export const SHOWN_ONCE_TTL_MS = 10 * 60_000;
/** Most secrets held at once, all sessions together (the oldest go first beyond it). */
export const SHOWN_ONCE_MAX_HELD = 10_000;

interface Held {
  accountId: string;
  secret: string;
  expiresAt: number;
}

export interface ShownOnce {
  /** Holds `secret` for the session's next view of `slot`, replacing what was held there. */
  hold(session: { sessionHash: string; accountId: string }, slot: string, secret: string): void;
  /** The secret held for the session and slot, removed as it is returned; null when none. */
  take(sessionHash: string, slot: string): string | null;
  /** Drops what an account's sessions hold (signed out everywhere). */
  forgetAccount(accountId: string): void;
  /** Drops what one session holds (signed out). */
  forgetSession(sessionHash: string): void;
  /** How many secrets are held (for tests). */
  size(): number;
}

export function createShownOnce(now: () => number, maxHeld = SHOWN_ONCE_MAX_HELD): ShownOnce {
  // Insertion order is expiry order (one TTL for all), so expired entries sit at the front.
  const held = new Map<string, Held>();
  const keyOf = (sessionHash: string, slot: string) => `${sessionHash} ${slot}`;

  function sweep(): void {
    const nowMs = now();
    for (const [key, entry] of held) {
      if (entry.expiresAt > nowMs && held.size <= maxHeld) break;
      held.delete(key);
    }
  }

  return {
    hold(session, slot, secret) {
      const key = keyOf(session.sessionHash, slot);
      held.delete(key);
      held.set(key, { accountId: session.accountId, secret, expiresAt: now() + SHOWN_ONCE_TTL_MS });
      sweep();
    },
    take(sessionHash, slot) {
      sweep();
      const key = keyOf(sessionHash, slot);
      const entry = held.get(key);
      held.delete(key);
      return entry?.secret ?? null;
    },
    forgetAccount(accountId) {
      for (const [key, entry] of held) if (entry.accountId === accountId) held.delete(key);
    },
    forgetSession(sessionHash) {
      const prefix = `${sessionHash} `;
      for (const key of held.keys()) if (key.startsWith(prefix)) held.delete(key);
    },
    size: () => held.size,
  };
}
