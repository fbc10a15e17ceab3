import { describe, expect, it } from 'vitest';
import { asSentence, cleanName, nameCharacters } from './display-text.js';
import { cleanFeedName, MAX_FEED_NAME_LENGTH } from './feed.js';

describe('typed names', () => {
  it('drops control characters and trims, keeping markup and characters beyond ASCII', () => {
    expect(cleanName(' \tNews\u0000 feed\u007f\r\n', 50)).toBe('News feed');
    expect(cleanName('<b>Télé</b> 😀', 50)).toBe('<b>Télé</b> 😀');
    expect(cleanName('\u0001 \u0002', 50)).toBe('');
  });

  it('cuts by code points, never halving one, after trimming', () => {
    expect(cleanName('   😀😀😀', 2)).toBe('😀😀');
    expect(nameCharacters('  😀a ')).toEqual(['😀', 'a']);
  });

  it('is the rule a feed name is kept by', () => {
    const typed = `  ${'é'.repeat(MAX_FEED_NAME_LENGTH + 5)}\u0007`;
    expect(cleanFeedName(typed)).toBe('é'.repeat(MAX_FEED_NAME_LENGTH));
  });
});

describe('asSentence', () => {
  it('capitalises the first letter and ends with a full stop', () => {
    expect(asSentence('give the feed a name')).toBe('Give the feed a name.');
    expect(asSentence('éte is a word')).toBe('Éte is a word.');
  });
});
