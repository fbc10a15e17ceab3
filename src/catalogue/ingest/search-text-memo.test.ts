import { describe, expect, it } from 'vitest';
import { searchTextOf } from '../../domain/programme-search.js';
import { SearchTextMemo } from './search-text-memo.js';

describe('SearchTextMemo', () => {
  it('gives what searchTextOf gives, for lists seen before, new, and after it was emptied', () => {
    const memo = new SearchTextMemo(2);
    const lists = [
      ['News at Ten', 'The day’s news'],
      ['Télé Matin', 'Été'],
      ['News at Ten', 'The day’s news'],
      // Texts that join alike: the same words either way.
      ['a\u0000b'],
      ['a', 'b'],
      ['Star Trek'],
      ['Télé Matin', 'Été'],
    ];
    for (const texts of lists) expect(memo.textOf(texts)).toBe(searchTextOf(texts));
  });
});
