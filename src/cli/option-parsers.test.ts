import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseIsoInstant, parseKeyName } from './option-parsers.js';

describe('parseIsoInstant', () => {
  it('reads dates and date-times, UTC unless a zone is given', () => {
    expect(parseIsoInstant('2028-02-29')).toBe(Date.UTC(2028, 1, 29));
    expect(parseIsoInstant('2027-12-31T23:59:59')).toBe(Date.UTC(2027, 11, 31, 23, 59, 59));
    expect(parseIsoInstant('2027-06-01T10:00+0200')).toBe(Date.UTC(2027, 5, 1, 8));
  });

  it('refuses a date or time that does not exist instead of rolling it over', () => {
    for (const text of [
      '2027-02-29',
      '2027-02-30',
      '2027-04-31',
      '2027-13-01',
      '2027-00-10',
      '2027-01-00',
      '2027-01-01T24:00Z',
      '2027-01-01T10:60',
      '2027-01-01T10:00:60Z',
    ]) {
      expect(() => parseIsoInstant(text), text).toThrow(
        new InvalidArgumentError(`"${text}" is not a valid date`),
      );
    }
  });
});

describe('parseKeyName', () => {
  it('refuses a name that cleans to nothing, as the web page does', () => {
    for (const text of ['', '   ', '\u0001\t']) {
      expect(() => parseKeyName(text)).toThrow(/give the key a name/);
    }
    expect(parseKeyName(' production ')).toBe(' production ');
  });
});
