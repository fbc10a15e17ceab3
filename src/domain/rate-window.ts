/** Default requests per second per account (spec: 3 per 1-second fixed window). */
export const DEFAULT_RATE_LIMIT = 3;
export const RATE_WINDOW_MS = 1000;

/** Start of the fixed window that `nowMs` falls in. */
export function windowStart(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/** Outcome of counting one request against a fixed-window budget. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}

/**
 * Whole seconds (at least 1) until the window of `decision` ends: the one computation of every
 * `Retry-After` value and of the `reset` of the `RateLimit` header.
 */
export function retryAfterSeconds(decision: RateDecision): number {
  return Math.max(1, Math.ceil(decision.resetMs / 1000));
}
