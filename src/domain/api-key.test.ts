import { describe, expect, it } from 'vitest';
import {
  describeApiKey,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  KEY_LENGTH,
} from './api-key.js';

describe('API keys', () => {
  it('are prefixed, fixed-length, unique and pass their own checksum', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^onair_[0-9A-Za-z]+$/);
      expect(key).toHaveLength(KEY_LENGTH);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('refuses any single-character change, wrong lengths and other shapes', () => {
    const key = generateApiKey();
    for (let i = 6; i < key.length; i++) {
      const changed = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
      expect(isWellFormedApiKey(changed), `position ${i}`).toBe(false);
    }
    expect(isWellFormedApiKey(key.slice(1))).toBe(false);
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(key.replace('onair_', 'other_'))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('hashes to a stable hex digest and describes itself by prefix and last four', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(describeApiKey(key)).toEqual({ prefix: key.slice(0, 10), lastFour: key.slice(-4) });
  });
});
