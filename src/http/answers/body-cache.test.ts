import { describe, expect, it } from 'vitest';
import { createBodyCache } from './body-cache.js';

/** A body of `size` bytes named `name`; each key's bytes count too, so keys are one letter. */
const body = (name: string, size = 10) => Buffer.alloc(size, name);

describe('createBodyCache', () => {
  it('keeps a body per key at its version and builds it again for another version', async () => {
    const cache = createBodyCache(1_000);
    let builds = 0;
    const build = () => {
      builds += 1;
      return body('a');
    };
    const first = await cache.get('a', 'v1', build);
    expect(await cache.get('a', 'v1', build)).toBe(first);
    expect(cache.peek('a', 'v1')).toBe(first);
    expect(cache.peek('a', 'v2')).toBeUndefined();
    expect(cache.peek('b', 'v1')).toBeUndefined();
    expect(builds).toBe(1);
    const second = await cache.get('a', 'v2', build);
    expect(second).not.toBe(first);
    expect(second.etag).not.toBe(first.etag);
    expect(builds).toBe(2);
  });

  it('evicts the bodies used longest ago first, counting uses through peek', async () => {
    // Room for three bodies of 10 bytes and their one-letter keys.
    const cache = createBodyCache(33);
    for (const key of ['a', 'b', 'c']) await cache.get(key, 'v', () => body(key));
    // a used after b and c were added: b is now the one used longest ago.
    cache.peek('a', 'v');
    await cache.get('d', 'v', () => body('d'));
    expect(['a', 'b', 'c', 'd'].filter((key) => cache.has(key))).toEqual(['a', 'c', 'd']);
    // Used again and again with nothing added in between: still the most recent of all.
    cache.peek('c', 'v');
    cache.peek('a', 'v');
    cache.peek('a', 'v');
    await cache.get('e', 'v', () => body('e'));
    // d, not used since it was added, goes first.
    expect(['a', 'c', 'd', 'e'].filter((key) => cache.has(key))).toEqual(['a', 'c', 'e']);
    cache.peek('c', 'v');
    await cache.get('f', 'v', () => body('f'));
    expect(['a', 'c', 'e', 'f'].filter((key) => cache.has(key))).toEqual(['c', 'e', 'f']);
  });

  it('keeps one body larger than the whole budget rather than none', async () => {
    const cache = createBodyCache(5);
    const big = await cache.get('a', 'v', () => body('a', 50));
    expect(cache.peek('a', 'v')).toBe(big);
  });
});
