import { describe, expect, it } from 'vitest';
import { setWithin } from './bounded-map.js';

describe('setWithin', () => {
  it('keeps at most max entries, forgetting the one set longest ago', () => {
    const map = new Map<string, number>();
    setWithin(map, 'a', 1, 2);
    setWithin(map, 'b', 2, 2);
    expect([...map]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    // Setting a kept key again changes its value, not its place.
    setWithin(map, 'a', 3, 2);
    setWithin(map, 'c', 4, 2);
    expect([...map]).toEqual([
      ['b', 2],
      ['c', 4],
    ]);
  });
});
