import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './memory-limiter.js';

describe('memory rate limiter', () => {
  it('counts per key in fixed windows aligned to the window size', async () => {
    let now = 10_250;
    const limiter = createMemoryRateLimiter(1000, () => now);
    const allowed = async (key: string) => (await limiter.hit(key, 2)).allowed;
    expect([await allowed('a'), await allowed('a'), await allowed('a')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(await allowed('b')).toBe(true);
    now = 10_999;
    expect(await allowed('a')).toBe(false);
    now = 11_000;
    expect(await allowed('a')).toBe(true);
  });

  it('reports the limit, what remains and when the window resets', async () => {
    const limiter = createMemoryRateLimiter(1000, () => 5_400);
    expect(await limiter.hit('k', 3)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetMs: 600,
    });
    await limiter.hit('k', 3);
    await limiter.hit('k', 3);
    expect(await limiter.hit('k', 3)).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetMs: 600,
    });
  });
});
