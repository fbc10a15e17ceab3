import { describe, expect, it } from 'vitest';
import { formatXmltvUtc, parseUtcOffset, parseXmltvTime } from './xmltv-time.js';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) =>
  Date.UTC(y, mo - 1, d, h, mi, s);

describe('parseXmltvTime', () => {
  it('applies numeric offsets, also half-hour ones', () => {
    expect(parseXmltvTime('20240115183000 +0000')).toBe(utc(2024, 1, 15, 18, 30));
    expect(parseXmltvTime('20240115183000 +0100')).toBe(utc(2024, 1, 15, 17, 30));
    expect(parseXmltvTime('20240115183000 -0400')).toBe(utc(2024, 1, 15, 22, 30));
    expect(parseXmltvTime('20240115183000 +0530')).toBe(utc(2024, 1, 15, 13, 0));
    expect(parseXmltvTime('20240115003000 +0530')).toBe(utc(2024, 1, 14, 19, 0));
    expect(parseXmltvTime('20240101003000 +0100')).toBe(utc(2023, 12, 31, 23, 30));
    expect(parseXmltvTime('20240115183000 -0930')).toBe(utc(2024, 1, 16, 4, 0));
  });

  it('accepts an offset without the space and with a colon', () => {
    expect(parseXmltvTime('20240115183000+0100')).toBe(utc(2024, 1, 15, 17, 30));
    expect(parseXmltvTime('20240115183000 +01:00')).toBe(utc(2024, 1, 15, 17, 30));
  });

  it('accepts the truncated forms of the DTD, missing parts being the start of the period', () => {
    expect(parseXmltvTime('202401151830 +0000')).toBe(utc(2024, 1, 15, 18, 30));
    expect(parseXmltvTime('2024011518 +0000')).toBe(utc(2024, 1, 15, 18));
    expect(parseXmltvTime('20240115')).toBe(utc(2024, 1, 15));
    expect(parseXmltvTime('202401')).toBe(utc(2024, 1, 1));
    expect(parseXmltvTime('2024')).toBe(utc(2024, 1, 1));
    expect(parseXmltvTime('202401151830 +0200')).toBe(utc(2024, 1, 15, 16, 30));
  });

  it('reads a time without offset at the assumed offset (UTC unless told)', () => {
    expect(parseXmltvTime('20260313083000')).toBe(utc(2026, 3, 13, 8, 30));
    expect(parseXmltvTime('20260313083000', 480)).toBe(utc(2026, 3, 13, 0, 30));
    expect(parseXmltvTime('20260313003000', 480)).toBe(utc(2026, 3, 12, 16, 30));
    expect(parseXmltvTime('20260313083000', -300)).toBe(utc(2026, 3, 13, 13, 30));
    expect(parseXmltvTime('20260313', 480)).toBe(utc(2026, 3, 12, 16));
    // An explicit offset wins over the assumed one.
    expect(parseXmltvTime('20260313083000 +0000', 480)).toBe(utc(2026, 3, 13, 8, 30));
  });

  it('reads UTC and GMT names as offset zero, whatever is assumed', () => {
    for (const zone of ['UTC', 'GMT', 'UT', 'Z', 'utc', 'gmt']) {
      expect(parseXmltvTime(`20240115183000 ${zone}`, 480), zone).toBe(utc(2024, 1, 15, 18, 30));
    }
    expect(parseXmltvTime('20240115183000Z')).toBe(utc(2024, 1, 15, 18, 30));
  });

  it('ignores surrounding whitespace', () => {
    expect(parseXmltvTime('  20240115183000 +0000 ')).toBe(utc(2024, 1, 15, 18, 30));
  });

  it('returns null for impossible calendar values', () => {
    for (const text of [
      '20240230000000 +0000', // 30 February
      '20230229000000 +0000', // 2023 is not a leap year
      '21000229000000 +0000', // nor is 2100
      '20241301000000 +0000',
      '20240001000000 +0000',
      '20240100000000 +0000',
      '20240431000000 +0000',
      '20240115240000 +0000',
      '20240115236000 +0000',
      '20240115235960 +0000',
      '20240115183000 +1500', // offsets stop at ±14:00
      '20240115183000 +0160',
      '00990115000000 +0000', // years below 100 are refused
    ]) {
      expect(parseXmltvTime(text), text).toBeNull();
    }
    expect(parseXmltvTime('20240229000000 +0000')).toBe(utc(2024, 2, 29));
    expect(parseXmltvTime('20000229000000 +0000')).toBe(utc(2000, 2, 29));
  });

  it('returns null for text that is not an XMLTV time', () => {
    for (const text of [
      '',
      ' ',
      'tomorrow',
      '2024011', // 7 digits: no truncated form has an odd length
      '202401151830001 +0000', // 15 digits
      '20240115183000 +01',
      '20240115183000 BST', // named zones other than UTC/GMT are not numeric offsets
      '2024-01-15T18:30:00Z',
      '20240115183000 +0000 extra',
    ]) {
      expect(parseXmltvTime(text), text).toBeNull();
    }
  });
});

describe('parseUtcOffset', () => {
  it('parses ±HHMM and ±HH:MM into minutes east of UTC', () => {
    expect(parseUtcOffset('+0000')).toBe(0);
    expect(parseUtcOffset('+0530')).toBe(330);
    expect(parseUtcOffset('-04:00')).toBe(-240);
    expect(parseUtcOffset('+1400')).toBe(840);
    expect(parseUtcOffset('+1500')).toBeNull();
    expect(parseUtcOffset('8')).toBeNull();
    expect(parseUtcOffset('+08')).toBeNull();
  });
});

describe('formatXmltvUtc', () => {
  it('formats an instant as YYYYMMDDHHMMSS +0000, zero-padded', () => {
    expect(formatXmltvUtc(utc(2024, 1, 5, 3, 4, 5))).toBe('20240105030405 +0000');
    expect(formatXmltvUtc(utc(2026, 12, 31, 23, 59, 59))).toBe('20261231235959 +0000');
    expect(formatXmltvUtc(0)).toBe('19700101000000 +0000');
  });

  it('round-trips with parseXmltvTime', () => {
    const ms = parseXmltvTime('20240115183000 +0530');
    expect(ms).not.toBeNull();
    expect(formatXmltvUtc(ms as number)).toBe('20240115130000 +0000');
    expect(parseXmltvTime(formatXmltvUtc(ms as number))).toBe(ms);
  });
});
