import { describe, expect, it } from 'vitest';
import { formatXmltvUtc, parseXmltvTime } from '../../domain/xmltv-time.js';
import { TimeConverter, formatUtcFast, parseCommonXmltvTime } from './time-converter.js';

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('parseCommonXmltvTime (fast path)', () => {
  it('agrees with parseXmltvTime on valid, invalid and borderline values', () => {
    const next = random(42);
    const pick = (max: number) => Math.floor(next() * max);
    for (let i = 0; i < 20_000; i++) {
      // Ranges a little wider than valid, to hit every refusal.
      const digits =
        pad(pick(3) === 0 ? pick(200) : 1900 + pick(300), 4) +
        pad(pick(14), 2) +
        pad(pick(33), 2) +
        pad(pick(26), 2) +
        pad(pick(62), 2) +
        pad(pick(62), 2);
      const offset = `${pick(2) === 0 ? '+' : '-'}${pad(pick(16), 2)}${pad(pick(62), 2)}`;
      const assumed = pick(3) === 0 ? 0 : pick(1681) - 840;
      for (const text of [digits, `${digits} ${offset}`]) {
        const fast = parseCommonXmltvTime(text, assumed);
        expect(fast, text).not.toBeUndefined();
        expect(fast, `${text} @${assumed}`).toBe(parseXmltvTime(text, assumed));
      }
    }
  });

  it('leaves every other form to the domain parser', () => {
    for (const text of [
      '',
      '2024',
      '20240115',
      '202401151830 +0000',
      '20240115183000+0100',
      '20240115183000 +01:00',
      '20240115183000 UTC',
      ' 20240115183000 +0000',
      '2024011518300x +0000',
      '20240115183000 ~0100',
      '20240115183000 +01x0',
    ]) {
      expect(parseCommonXmltvTime(text, 0), text).toBeUndefined();
    }
  });
});

describe('formatUtcFast', () => {
  it('formats exactly like formatXmltvUtc', () => {
    const next = random(7);
    const samples = [0, -1, 253402300799999, -62135596800000, Date.UTC(2024, 1, 29, 23, 59, 59)];
    for (let i = 0; i < 5000; i++) samples.push(Math.floor(next() * 4e12));
    for (const ms of samples) expect(formatUtcFast(ms), String(ms)).toBe(formatXmltvUtc(ms));
  });
});

describe('TimeConverter', () => {
  it('gives the same answers with and without its cache hits', () => {
    const converter = new TimeConverter(330);
    const texts = [
      '20240115183000 +0530',
      '20240115190000 +0530',
      '20240115183000 +0530',
      '20240115183000',
      'garbage',
      '20240115183000 +0000',
      '20240115190000 +0530',
      '2024011518',
    ];
    for (const text of [...texts, ...texts.reverse()]) {
      converter.convert(text);
      const expected = parseXmltvTime(text, 330);
      expect(converter.ms, text).toBe(expected);
      expect(converter.utc, text).toBe(expected === null ? text : formatXmltvUtc(expected));
    }
  });
});
