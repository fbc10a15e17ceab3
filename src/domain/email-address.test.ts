import { describe, expect, it } from 'vitest';
import { parseEmailAddress } from './email-address.js';

describe('parseEmailAddress', () => {
  it('keeps a plain address, trimmed, with its case', () => {
    expect(parseEmailAddress('  Ann.Lee+tv@Example.com ')).toBe('Ann.Lee+tv@Example.com');
  });

  it('keeps the characters RFC 5322 allows unquoted, and non-ASCII ones', () => {
    for (const text of [
      "o'brien@example.ie",
      'a!#$%&*+/=?^_`{|}~-z@example.com',
      'first.middle.last@mail.example.co.uk',
      'x@sub-domain.example.com',
      'josé@exemple.fr',
      'ann@例え.jp',
      `${'a'.repeat(64)}@x.com`,
    ]) {
      expect(parseEmailAddress(text), text).toBe(text);
    }
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
      `${'a'.repeat(65)}@x.com`,
    ]) {
      expect(parseEmailAddress(text), text).toBeNull();
    }
  });

  it('refuses markup and the characters allowed only in a quoted local part', () => {
    for (const text of [
      '<script>alert(1)</script>@x.com',
      'ann<b>@x.com',
      'ann(comment)@x.com',
      'a[1]@x.com',
      'a\\b@x.com',
      'a,b@x.com',
      'a;b@x.com',
      'a:b@x.com',
      '"ann"@x.com',
      '"a b"@x.com',
      'a\tb@x.com',
    ]) {
      expect(parseEmailAddress(text), text).toBeNull();
    }
  });

  it('refuses dots out of place and a domain that is not a name', () => {
    for (const text of [
      '.ann@x.com',
      'ann.@x.com',
      'a..b@x.com',
      'ann@x..com',
      'ann@.x.com',
      'ann@x.com.',
      'ann@-x.com',
      'ann@x-.com',
      'ann@x_y.com',
      'ann@[127.0.0.1]',
      'ann@<x>.com',
      'ann@x.com>',
    ]) {
      expect(parseEmailAddress(text), text).toBeNull();
    }
  });
});
