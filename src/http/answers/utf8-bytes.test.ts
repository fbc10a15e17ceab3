import { describe, expect, it } from 'vitest';
import { commaJoinedUtf8, utf8Bytes } from './utf8-bytes.js';

/** Random text drawn from ASCII, Latin-1, the BMP beyond it, astral pairs and lone surrogates. */
function randomText(random: () => number, length: number): string {
  const pools = [
    () => String.fromCharCode(32 + Math.floor(random() * 95)),
    () => String.fromCharCode(0xa0 + Math.floor(random() * 0x60)),
    () => String.fromCharCode(0x2000 + Math.floor(random() * 0x100)),
    () => String.fromCodePoint(0x1f300 + Math.floor(random() * 0x100)),
    () => String.fromCharCode(0xd800 + Math.floor(random() * 0x800)),
  ];
  let text = '';
  const mostly = Math.floor(random() * pools.length);
  for (let i = 0; i < length; i++) {
    const pool = random() < 0.8 ? mostly : Math.floor(random() * pools.length);
    text += (pools[pool] as () => string)();
  }
  return text;
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const joined = (pieces: readonly (string | Buffer)[]) =>
  Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

describe('utf8Bytes', () => {
  it('gives the bytes of each piece as Buffer.from gives them, whatever the characters', () => {
    const random = seeded(26);
    for (let round = 0; round < 2_000; round++) {
      const pieces = Array.from({ length: Math.floor(random() * 12) }, () =>
        randomText(random, Math.floor(random() * 40)),
      );
      expect(utf8Bytes(pieces).equals(joined(pieces))).toBe(true);
      // Pieces that are whole text (JSON is: it escapes a lone surrogate) join as one text.
      const whole = pieces.map((p) => p.replace(LONE_SURROGATE, '\uFFFD'));
      expect(utf8Bytes(whole).equals(Buffer.from(whole.join('')))).toBe(true);
    }
  });

  it('copies Buffers among the strings as they are', () => {
    const random = seeded(7);
    for (let round = 0; round < 500; round++) {
      const pieces = Array.from({ length: 1 + Math.floor(random() * 8) }, () => {
        const text = randomText(random, Math.floor(random() * 30));
        return random() < 0.4 ? Buffer.from(text) : text;
      });
      expect(utf8Bytes(pieces).equals(joined(pieces))).toBe(true);
    }
  });

  it('writes pieces longer than its scratch space, and many that fill it', () => {
    const long = 'Télé ’quote’ 📺 '.repeat(40_000); // ~640,000 units, beyond 256 KiB of scratch
    expect(utf8Bytes(['{', long, '}']).equals(Buffer.from(`{${long}}`))).toBe(true);
    const many = Array.from({ length: 5_000 }, (_, i) => `{"id":${i},"t":"été – ${i}"}`);
    expect(utf8Bytes(many).equals(Buffer.from(many.join('')))).toBe(true);
    // After a large answer, small ones are still right (the scratch is given back).
    expect(utf8Bytes(['a', 'é', '’']).toString()).toBe('aé’');
  });

  it('gives a buffer of its own, not a view of another', () => {
    const first = utf8Bytes(['{"a":1}']);
    const second = utf8Bytes(['{"b":2}']);
    expect(first.toString()).toBe('{"a":1}');
    expect(second.toString()).toBe('{"b":2}');
    expect(first.byteOffset).toBe(0);
    expect(first.buffer.byteLength).toBe(first.length);
    expect(utf8Bytes([]).length).toBe(0);
  });
});

describe('commaJoinedUtf8', () => {
  it('gives the texts joined by commas as UTF-8, and where each begins', () => {
    const random = seeded(11);
    for (let round = 0; round < 1_000; round++) {
      const texts = Array.from({ length: Math.floor(random() * 10) }, () =>
        randomText(random, Math.floor(random() * 30)).replace(LONE_SURROGATE, '\uFFFD'),
      );
      const { bytes, offsets } = commaJoinedUtf8(texts);
      expect(bytes.equals(Buffer.from(texts.join(',')))).toBe(true);
      expect(offsets).toHaveLength(texts.length + 1);
      texts.forEach((text, i) => {
        const start = offsets[i] ?? -1;
        const end = (offsets[i + 1] ?? -1) - 1;
        expect(bytes.subarray(start, end).toString()).toBe(text);
        if (i + 1 < texts.length) expect(bytes[end]).toBe(0x2c);
      });
      // One past the end, as if a comma followed the last.
      expect(offsets[texts.length]).toBe(bytes.length + (texts.length > 0 ? 1 : 0));
    }
  });
});
