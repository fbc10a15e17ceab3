import { describe, expect, it } from 'vitest';
import { searchTextOf } from '../domain/programme-search.js';
import { joinSearchedTexts, SearchTextMemo } from './search-text-memo.js';

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
      [],
      ['ΟΔΥΣΣΕΑΣ', 'Σ'],
    ];
    for (const texts of lists) {
      expect(memo.textOf(joinSearchedTexts(texts))).toBe(searchTextOf(texts));
    }
  });
});

describe('SearchTextMemo when lists seldom repeat', () => {
  it('stops looking them up after a sample finds few, gives the same texts, and samples again', () => {
    const memo = new SearchTextMemo();
    const textOf = (texts: string[]) => memo.textOf(joinSearchedTexts(texts));
    // Every list new: a sample of 2,048 lookups finds none kept.
    for (let i = 0; i < 2_047; i++) expect(textOf([`Film ${i}`])).toBe(`film ${i}`);
    expect(memo.skips).toBe(false);
    textOf(['Film 2047']);
    expect(memo.skips).toBe(true);
    for (let i = 0; i < 16_384; i++) {
      expect(textOf(['Télé', `Été ${i % 3}`])).toBe(searchTextOf(['Télé', `Été ${i % 3}`]));
    }
    // Sampling again, on lists that repeat: kept, and looked up from then on.
    expect(memo.skips).toBe(false);
    for (let i = 0; i < 4_096; i++) textOf(['News', `Day ${i % 10}`]);
    expect(memo.skips).toBe(false);
  });
});
