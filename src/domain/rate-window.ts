/** Default requests per second per account (spec: 3 per 1-second fixed window). */
export const DEFAULT_RATE_LIMIT = 3;
export const RATE_WINDOW_MS = 1000;

/** Start of the fixed window that `nowMs` falls in. */
export function windowStart(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/** Whole seconds (at least 1) until the window holding `nowMs` ends: the `Retry-After` value. */
export function retryAfterSeconds(nowMs: number, windowMs: number): number {
  const remainingMs = windowStart(nowMs, windowMs) + windowMs - nowMs;
  return Math.max(1, Math.ceil(remainingMs / 1000));
}

/** Outcome of counting one request against a fixed-window budget. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}
