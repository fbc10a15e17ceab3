import { describe, expect, it } from 'vitest';
import { decideAccess, TRIAL_MS } from './access.js';

const NOW = Date.UTC(2026, 7, 22);
const DAY = 86_400_000;

describe('access decision', () => {
  it('a verified account is eligible for 7 days from verification', () => {
    const facts = { verifiedAt: NOW - 6 * DAY, accessUntil: null, disabled: false };
    expect(decideAccess(facts, NOW)).toEqual({ eligible: true, until: NOW + DAY });
    const decision = decideAccess(facts, NOW - 6 * DAY + TRIAL_MS);
    expect(decision.eligible).toBe(false);
    expect(decision.eligible === false && decision.error.code).toBe('ACCESS_EXPIRED');
  });

  it('the later of trial end and access_until decides', () => {
    expect(
      decideAccess({ verifiedAt: NOW - 30 * DAY, accessUntil: NOW + 1, disabled: false }, NOW),
    ).toEqual({
      eligible: true,
      until: NOW + 1,
    });
    expect(decideAccess({ verifiedAt: NOW, accessUntil: NOW - DAY, disabled: false }, NOW)).toEqual(
      {
        eligible: true,
        until: NOW + TRIAL_MS,
      },
    );
  });

  it('unverified, disabled and never-granted accounts are refused with their codes', () => {
    const code = (facts: Parameters<typeof decideAccess>[0]) => {
      const d = decideAccess(facts, NOW);
      return d.eligible ? null : d.error.code;
    };
    expect(code({ verifiedAt: null, accessUntil: NOW + DAY, disabled: false })).toBe(
      'EMAIL_NOT_VERIFIED',
    );
    expect(code({ verifiedAt: NOW, accessUntil: null, disabled: true })).toBe('ACCOUNT_DISABLED');
    expect(code({ verifiedAt: NOW - 8 * DAY, accessUntil: null, disabled: false })).toBe(
      'ACCESS_EXPIRED',
    );
  });
});
