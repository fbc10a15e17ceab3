import { describe, expect, it } from 'vitest';
import { pickEncoding } from './body-sender.js';

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
