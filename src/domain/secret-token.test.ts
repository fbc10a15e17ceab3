import { describe, expect, it } from 'vitest';
import { generateSecretToken, hashSecretToken, isWellFormedSecretToken } from './secret-token.js';

describe('secret tokens', () => {
  it('are random, well formed, and hashed to 64 hex characters', () => {
    const a = generateSecretToken();
    const b = generateSecretToken();
    expect(a).not.toBe(b);
    expect(isWellFormedSecretToken(a)).toBe(true);
    expect(hashSecretToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecretToken(a)).toBe(hashSecretToken(a));
    expect(hashSecretToken(a)).not.toBe(hashSecretToken(b));
  });

  it('refuses malformed tokens on shape alone', () => {
    for (const token of ['', 'short', `${generateSecretToken()}x`, 'a'.repeat(42) + '=']) {
      expect(isWellFormedSecretToken(token), token).toBe(false);
    }
  });
});
