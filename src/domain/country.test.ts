import { describe, expect, it } from 'vitest';
import {
  inferCountryFromXmltvId,
  isoCountryNote,
  isValidCountryCode,
  parseCountryCode,
} from './country.js';

describe('country codes', () => {
  it('accepts letters, digits and hyphens up to 16 characters', () => {
    for (const code of ['UK', 'gb', 'US-CA', '001', 'A'.repeat(16), '-']) {
      expect(isValidCountryCode(code), code).toBe(true);
    }
    for (const code of ['', 'A'.repeat(17), 'U K', 'U_K', 'ÜK', 'u.k', 'uk\n', 'U/K']) {
      expect(isValidCountryCode(code), code).toBe(false);
    }
  });

  it('stores codes upper-case and refuses invalid ones with INVALID_COUNTRY', () => {
    expect(parseCountryCode('us-ca')).toBe('US-CA');
    expect(() => parseCountryCode('u_k')).toThrow(
      expect.objectContaining({ code: 'INVALID_COUNTRY', status: 400 }),
    );
  });

  it('infers a country from the last two-letter label of an XMLTV id', () => {
    expect(inferCountryFromXmltvId('bbc1.uk')).toBe('UK');
    expect(inferCountryFromXmltvId('abc.net.au')).toBe('AU');
    expect(inferCountryFromXmltvId('Hot3.il@SD')).toBe('IL');
    expect(inferCountryFromXmltvId('cnn.com')).toBeNull();
    expect(inferCountryFromXmltvId('cctv1')).toBeNull();
    expect(inferCountryFromXmltvId('Das Erste')).toBeNull();
    expect(inferCountryFromXmltvId('channel.1')).toBeNull();
  });

  it('keeps UK as given, and notes GB (its ISO 3166 code) in messages about it', () => {
    expect(parseCountryCode('UK')).toBe('UK');
    expect(parseCountryCode('uk')).toBe('UK');
    expect(isoCountryNote('UK')).toBe(' (ISO 3166 code for the United Kingdom: GB)');
    expect(isoCountryNote('uk')).toBe(' (ISO 3166 code for the United Kingdom: GB)');
    for (const code of ['GB', 'IE', 'US', 'UKR', 'U', ''])
      expect(isoCountryNote(code), code).toBe('');
  });
});
