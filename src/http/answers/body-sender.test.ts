import { describe, expect, it } from 'vitest';
import { etagFor, pickEncoding } from './body-sender.js';

describe('pickEncoding', () => {
  it('prefers brotli, then gzip, honouring q=0 refusals', () => {
    expect(pickEncoding(undefined)).toBeNull();
    expect(pickEncoding('')).toBeNull();
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip')).toBe('gzip');
    expect(pickEncoding('GZIP;q=0.5')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0.0, gzip;q=0')).toBeNull();
    expect(pickEncoding('*')).toBe('gzip');
    expect(pickEncoding('identity, deflate')).toBeNull();
  });
});

describe('etagFor', () => {
  const tags = [
    '671555538071:countries',
    '671555538071:search::e n',
    '671555538071:search::e_n',
    '671555538071:search::e%20n',
    '671555538071:search::中',
    '671555538071:search::文',
    '671555538071:search::"quoted"',
    '671555538071:search::',
  ];

  it('names a plain tag as it is', () => {
    expect(etagFor('671555538071:countries')).toBe('W/"671555538071:countries"');
  });

  it('gives different tags different ETags, each a valid weak entity tag', () => {
    const etags = tags.map(etagFor);
    expect(new Set(etags).size).toBe(tags.length);
    for (const etag of etags) expect(etag).toMatch(/^W\/"[\x21\x23-\x7e]*"$/);
    // The same tag, the same ETag.
    expect(etagFor('671555538071:search::中')).toBe(etags[4]);
  });
});
