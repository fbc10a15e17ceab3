import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from './rate-window.js';

describe('retryAfterSeconds', () => {
  it('rounds the rest of the window up to whole seconds, never below 1', () => {
    const decision = (resetMs: number) => ({ allowed: false, limit: 3, remaining: 0, resetMs });
    expect(retryAfterSeconds(decision(900))).toBe(1);
    expect(retryAfterSeconds(decision(1000))).toBe(1);
    expect(retryAfterSeconds(decision(1001))).toBe(2);
    expect(retryAfterSeconds(decision(59_500))).toBe(60);
    expect(retryAfterSeconds(decision(0))).toBe(1);
  });
});
