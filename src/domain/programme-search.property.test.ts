import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldedWordsOf, searchTextOf, searchWordsOf } from './programme-search.js';

// Pieces that test where folding could reach across a run: ASCII words, punctuation and the
// white space runs are cut at; letters with marks precomposed and apart, marks alone (after a
// space too), final sigma, dotted capital I, ligatures and compatibility forms that decompose
// into letters or spaces, Hangul syllables and jamo (composed again by NFC), other spaces,
// letters beyond the BMP, the letters only LETTER_FOLDS folds.
const PIECES = [
  'news',
  'NEWS',
  'Star',
  'trek',
  '10',
  'a',
  'Z9',
  '_',
  '-',
  ',',
  '.',
  "'",
  ':',
  '&',
  ' ',
  ' ',
  ' ',
  '\t',
  '\n',
  '\r',
  'é',
  'É',
  'e\u0301',
  '\u0301',
  '\u0308',
  'ü',
  'Ö',
  'ñ',
  'Σ',
  'ΟΔΟΣ',
  'σ',
  'ς',
  'İ',
  'ı',
  'ﬁ',
  'Ǆ',
  '™',
  '¨',
  '½',
  '²',
  '①',
  '㎏',
  '한',
  '국',
  '\u1100',
  '\u1161',
  '\u11a8',
  '東京',
  'ニュース',
  'ｶ',
  '\u00a0',
  '\u3000',
  '\u2028',
  'ª',
  'µ',
  '¹',
  '¼',
  'ŉ',
  '\u00ad',
  '\u0345',
  'ǅ',
  'Ǳ',
  'ĳ',
  'ſ',
  'ǰ',
  'ȸ',
  'ɐ',
  'ʰ',
  '˚',
  '𝐀',
  '😀',
  'ß',
  'ẞ',
  'Æ',
  'œ',
  'Ø',
  'Ł',
  'đ',
  'Þ',
  'Ħ',
  'ŧ',
];

describe('search words of a text', () => {
  it('fold every character of the BMP as the whole text folds: alone, in a word, beside marks, a sigma and jamo', () => {
    for (let code = 0x80; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      for (const text of [
        `a${c}b`,
        `News ${c}\u0301 ÉTÉ`,
        `${c}${c}x`,
        `Σ${c} ab${c}`,
        `\u1100${c}\u1161 가${c}`,
        `${c}\u11a8 \u3131${c}`,
      ]) {
        const words = searchWordsOf(text);
        const whole = foldedWordsOf(text);
        if (words.length !== whole.length || words.some((w, i) => w !== whole[i])) {
          expect(words, `U+${code.toString(16)} in ${JSON.stringify(text)}`).toEqual(whole);
        }
      }
    }
  });

  it('are those of the text folded whole, whichever runs are folded in full', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(searchWordsOf(text)).toEqual(foldedWordsOf(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('are those of the text folded whole for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string(), (a, b) => {
        const text = `${a} ${b}\t${a}${b}`;
        expect(searchWordsOf(text)).toEqual(foldedWordsOf(text));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('the search text of texts joined by U+0000', () => {
  // The store makes a programme's search text of its texts joined so (joinSearchedTexts,
  // storage/search-text-memo.ts), without splitting them again. (Joined by '.', a sigma would
  // fold as though a letter followed it: this fails.)
  it('is the search text of the texts one by one', () => {
    const texts = fc.oneof(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((p) => p.join('')),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
    );
    fc.assert(
      fc.property(fc.array(texts, { maxLength: 6 }), (list) => {
        expect(searchTextOf([list.join('\u0000')])).toBe(searchTextOf(list));
      }),
      { numRuns: 20_000 },
    );
  });
});
