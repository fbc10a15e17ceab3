import { windowStart, type RateDecision } from '../domain/rate-window.js';
import type { RateLimiter } from './types.js';

/**
 * In-process fixed-window limiter. Counters live in one map per window; when the window moves
 * on, the old map is dropped whole, so memory holds only the keys seen in the current window.
 */
export function createMemoryRateLimiter(windowMs: number, now: () => number): RateLimiter {
  let currentWindow = Number.NaN;
  let counts = new Map<string, number>();

  return {
    hit(key, limit): RateDecision {
      const nowMs = now();
      const start = windowStart(nowMs, windowMs);
      if (start !== currentWindow) {
        currentWindow = start;
        counts = new Map();
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return {
        allowed: count <= limit,
        limit,
        remaining: Math.max(0, limit - count),
        resetMs: start + windowMs - nowMs,
      };
    },
    async close() {
      counts.clear();
    },
  };
}
