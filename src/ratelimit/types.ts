import type { RateDecision } from '../domain/rate-window.js';

/**
 * Counts requests per key in fixed windows. Implementations: in-process memory (embedded
 * mode) and Redis (shared by every instance in scaled mode).
 */
export interface RateLimiter {
  /** Counts one request for `key` and says whether it fits `limit` in the current window. */
  hit(key: string, limit: number): Promise<RateDecision>;
  close(): Promise<void>;
}
