import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('durations', () => {
  it('parses what an operator writes', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration(' 6H ')).toBe(21_600_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
  });

  it('refuses anything else', () => {
    for (const text of ['', '6', 'h', '6 h', '-1h', '1.5h', '0m', '1w', 'often', '1h 30m']) {
      expect(parseDuration(text), text).toBeNull();
    }
  });

  it('formats the shortest spelling', () => {
    expect(formatDuration(21_600_000)).toBe('6h');
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(90_061_000)).toBe('1d1h1m1s');
    expect(formatDuration(0)).toBe('0s');
    expect(parseDuration(formatDuration(123_456_000))).toBe(123_456_000);
  });
});
