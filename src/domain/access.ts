import { errors, type AppError } from './errors.js';
import { DAY_MS } from './schedule-window.js';

/** The trial lasts 7 days from the first e-mail verification (spec). */
export const TRIAL_MS = 7 * DAY_MS;

/** The fields of an account that decide whether it may call the v1 API. */
export interface AccessFacts {
  verifiedAt: number | null;
  accessUntil: number | null;
  disabled: boolean;
}

export type AccessDecision =
  { eligible: true; until: number } | { eligible: false; until: number | null; error: AppError };

export function trialEnd(verifiedAt: number | null): number | null {
  return verifiedAt === null ? null : verifiedAt + TRIAL_MS;
}

/**
 * Eligible when the account is enabled, verified, and now is before the later of the trial end
 * and `access_until` (the longer effective access decides, spec §Authentication 5).
 */
export function decideAccess(facts: AccessFacts, nowMs: number): AccessDecision {
  const trial = trialEnd(facts.verifiedAt);
  const until = Math.max(trial ?? -Infinity, facts.accessUntil ?? -Infinity);
  const effectiveUntil = Number.isFinite(until) ? until : null;
  if (facts.disabled) {
    return { eligible: false, until: effectiveUntil, error: errors.accountDisabled() };
  }
  if (facts.verifiedAt === null) {
    return { eligible: false, until: effectiveUntil, error: errors.emailNotVerified() };
  }
  if (effectiveUntil === null || nowMs >= effectiveUntil) {
    return { eligible: false, until: effectiveUntil, error: errors.accessExpired() };
  }
  return { eligible: true, until: effectiveUntil };
}
