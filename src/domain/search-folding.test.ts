import { describe, expect, it } from 'vitest';
import { foldForSearch, nameSortKey, searchNeedle } from './search-folding.js';

describe('search folding', () => {
  it('folds case and accents', () => {
    expect(foldForSearch('Télé Lumière')).toBe('tele lumiere');
    expect(foldForSearch('TÉLÉ')).toBe(foldForSearch('tele'));
    expect(foldForSearch('Rundfunk Süd')).toContain('sud');
    expect(foldForSearch('Mar y Montaña')).toBe('mar y montana');
    expect(foldForSearch('ＴＶ５')).toBe('tv5'); // full-width forms fold too
  });

  it('keeps scripts without case as they are', () => {
    expect(foldForSearch('МҮОНТ')).toBe('мүонт');
    expect(foldForSearch('한국')).toBe(foldForSearch('한국'));
  });

  it('makes the needle: trimmed, cut to 200 code points, folded; blank is null', () => {
    expect(searchNeedle('  Télé ')).toBe('tele');
    expect(searchNeedle('   ')).toBeNull();
    expect(searchNeedle('')).toBeNull();
    expect(searchNeedle(undefined)).toBeNull();
    expect(searchNeedle('a'.repeat(300))).toHaveLength(200);
    // A surrogate pair at the cut is kept whole, never split.
    const emoji = '😀'.repeat(201);
    expect(Array.from(searchNeedle(emoji) ?? '')).toHaveLength(200);
  });

  it('gives no needle for text holding NUL, which no channel name can contain', () => {
    expect(searchNeedle('\u0000')).toBeNull();
    expect(searchNeedle('one\u0000')).toBeNull();
    // Beyond the 200 code points kept, it is cut away like the rest.
    expect(searchNeedle(`${'a'.repeat(200)}\u0000`)).toBe('a'.repeat(200));
  });

  it('orders names case-insensitively', () => {
    const names = ['bbc Two', 'Alpha', 'BBC One'];
    expect(names.sort((a, b) => (nameSortKey(a) < nameSortKey(b) ? -1 : 1))).toEqual([
      'Alpha',
      'BBC One',
      'bbc Two',
    ]);
  });
});
