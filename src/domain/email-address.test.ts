import { describe, expect, it } from 'vitest';
import { parseEmailAddress } from './email-address.js';

describe('parseEmailAddress', () => {
  it('keeps a plain address, trimmed, with its case', () => {
    expect(parseEmailAddress('  Ann.Lee+tv@Example.com ')).toBe('Ann.Lee+tv@Example.com');
  });

  it('refuses what cannot be an address', () => {
    for (const text of [
      '',
      'ann',
      'ann@',
      '@example.com',
      'a@b',
      'a b@example.com',
      'a@b@c.com',
      'a\n@x.com',
      `${'a'.repeat(250)}@x.com`,
    ]) {
      expect(parseEmailAddress(text), text).toBeNull();
    }
  });
});
