import { describe, expect, it } from 'vitest';
import { cleanKeyName, MAX_KEY_NAME_LENGTH } from './account-service.js';

describe('cleanKeyName', () => {
  it('drops control characters (NUL included), trims and keeps the rest', () => {
    expect(cleanKeyName('  prod\u0000uction\t\r\n ')).toBe('production');
    expect(cleanKeyName('a\u007fb\u0007c')).toBe('abc');
    expect(cleanKeyName('<b>Télé</b> 😀')).toBe('<b>Télé</b> 😀');
    expect(cleanKeyName('\u0000\u0001 ')).toBe('');
  });

  it('cuts to the longest name kept, never inside a surrogate pair', () => {
    expect(cleanKeyName('k'.repeat(300))).toHaveLength(MAX_KEY_NAME_LENGTH);
    const emoji = cleanKeyName('😀'.repeat(150));
    expect(Array.from(emoji)).toHaveLength(MAX_KEY_NAME_LENGTH);
    expect(emoji.endsWith('😀')).toBe(true);
  });
});
