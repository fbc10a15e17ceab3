import type { MaybeAsync } from '../domain/maybe-async.js';
import type { RateDecision } from '../domain/rate-window.js';

/**
 * Counts requests per key in fixed windows. Implementations: in-process memory (embedded
 * mode) and Redis (shared by every instance in scaled mode).
 */
export interface RateLimiter {
  /**
   * Counts one request for `key` and says whether it fits `limit` in the current window: at
   * once when the counts are in this process, once the shared store answers otherwise.
   */
  hit(key: string, limit: number): MaybeAsync<RateDecision>;
  close(): Promise<void>;
}
