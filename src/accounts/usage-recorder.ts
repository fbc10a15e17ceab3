import { isStorageUnavailable } from '../storage/errors.js';
import type { AccountStore, KeyUse, UsageCount } from '../storage/account-store.js';

/** A key's last use is written at most this often, so busy keys cost no write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Where failed flushes are reported. */
export interface UsageLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Notes API-key use and per-account request counts in memory and writes them in batches, off
 * the request path: a request never waits for (or fails because of) these writes.
 */
export interface UsageRecorder {
  /** Counts one authenticated v1 request; `limited` when it was answered 429. */
  record(keyId: string, accountId: string, nowMs: number, limited: boolean): void;
  /** Writes what has been noted so far. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export function createUsageRecorder(
  accounts: AccountStore,
  options: { flushIntervalMs?: number; log: UsageLog },
): UsageRecorder {
  const lastWritten = new Map<string, number>();
  let keyUses = new Map<string, number>();
  // Counts by hour, then by account: found without a key made for each request.
  let counts = new Map<number, Map<string, UsageCount>>();
  /** The count of `accountId` in the hour starting at `hourStart`, made when new. */
  const countOf = (accountId: string, hourStart: number): UsageCount => {
    let hour = counts.get(hourStart);
    if (hour === undefined) counts.set(hourStart, (hour = new Map()));
    let count = hour.get(accountId);
    if (count === undefined) {
      count = { accountId, hourStart, requests: 0, limited: 0 };
      hour.set(accountId, count);
    }
    return count;
  };
  let flushing: Promise<void> = Promise.resolve();

  let waiting = false;

  /** Puts a batch that could not be written back with what was noted since. */
  const keep = (uses: KeyUse[], usage: UsageCount[]) => {
    for (const use of uses) {
      if ((keyUses.get(use.keyId) ?? 0) < use.at) keyUses.set(use.keyId, use.at);
    }
    for (const count of usage) {
      const now = countOf(count.accountId, count.hourStart);
      now.requests += count.requests;
      now.limited += count.limited;
    }
  };

  const flushOnce = async (): Promise<void> => {
    if (keyUses.size === 0 && counts.size === 0) return;
    let uses: KeyUse[] = [...keyUses].map(([keyId, at]) => ({ keyId, at }));
    const usage = [...counts.values()].flatMap((hour) => [...hour.values()]);
    keyUses = new Map();
    counts = new Map();
    try {
      if (uses.length > 0) await accounts.markKeysUsed(uses);
      uses = [];
      if (usage.length > 0) await accounts.addUsage(usage);
      if (waiting) options.log.warn({}, 'key usage written again');
      waiting = false;
    } catch (error) {
      if (isStorageUnavailable(error)) {
        // Busy (an ingest holds the write lock) or unreachable: kept for the next flush.
        keep(uses, usage);
        if (!waiting)
          options.log.warn(
            { error: (error as Error).message },
            'key usage kept for later: storage busy or unavailable',
          );
        waiting = true;
        return;
      }
      // Any other failure is a bug: usage is informative, and must not take the API down.
      options.log.error({ err: error }, 'writing key usage failed');
    }
  };
  const flush = () => {
    flushing = flushing.then(flushOnce);
    return flushing;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 5_000);
  timer.unref();

  return {
    record(keyId, accountId, nowMs, limited) {
      const written = lastWritten.get(keyId);
      if (written === undefined || nowMs - written >= LAST_USED_RESOLUTION_MS) {
        lastWritten.set(keyId, nowMs);
        keyUses.set(keyId, nowMs);
      }
      const count = countOf(accountId, Math.floor(nowMs / HOUR_MS) * HOUR_MS);
      count.requests++;
      if (limited) count.limited++;
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
