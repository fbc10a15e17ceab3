import { describe, expect, it } from 'vitest';
import { richProgrammeOf, type TimedProgramme } from '../../domain/programme.js';
import { createEntryCache } from './entry-cache.js';

/** A programme as the guide routes read it; `over` changes what its entry is made from. */
function timed(n: number, over: Partial<TimedProgramme['programme']> = {}): TimedProgramme {
  const programme = {
    id: String(1_000_000_000_000_000_000n + BigInt(n)),
    start: '20260301120000 +0000',
    stop: '20260301130000 +0000',
    title: `Programme ${n}`,
    desc: 'A description of some length, as guides have them.',
    category: 'News',
    sourceFileId: '8f0a1a52-5b8e-4a4e-9a64-0e6e1a1a0001',
    needsReview: false,
    updatedAt: '1772366400000',
    ...over,
  };
  return {
    channelId: '2f3c1f0e-7a8b-5c9d-8e0f-1a2b3c4d5e6f',
    startMs: 0,
    stopMs: 3_600_000,
    id: programme.id,
    programme,
    details: '{"s":[["Part one","en"]]}',
  };
}

describe('the entry cache of the guide and search answers', () => {
  it('gives the JSON of the rich entry, the same when kept', () => {
    const cache = createEntryCache();
    const p = timed(1);
    const expected = JSON.stringify(richProgrammeOf(p.channelId, p.programme, p.details));
    expect(cache.json(p).toString()).toBe(expected);
    expect(cache.json(timed(1))).toBe(cache.json(p)); // the same bytes, kept
    expect(cache.json(p).buffer.byteLength).toBe(Buffer.byteLength(expected)); // not a pool slice
    expect(cache.size.entries).toBe(1);
    expect(JSON.parse(expected)).toMatchObject({ title: 'Programme 1', subTitle: 'Part one' });
  });

  it('makes the entry again when what it is made from changed', () => {
    const cache = createEntryCache();
    cache.json(timed(1));
    const changes: Partial<TimedProgramme['programme']>[] = [
      { updatedAt: '1772366500000', title: 'Retitled' },
      { sourceFileId: '8f0a1a52-5b8e-4a4e-9a64-0e6e1a1a0002' },
      { needsReview: true },
    ];
    for (const over of changes) {
      const p = timed(1, over);
      expect(JSON.parse(cache.json(p).toString())).toMatchObject(over);
    }
    expect(cache.size.entries).toBe(4);
  });

  it('counts an entry by its UTF-8 bytes', () => {
    const sizeOf = (title: string) => {
      const cache = createEntryCache();
      const json = cache.json(timed(1, { title }));
      return { bytes: cache.size.bytes, length: json.length };
    };
    const ascii = sizeOf('Tele 1');
    const wide = sizeOf('Tele’1'); // a curly quote: three bytes for one character
    // The title is in the entry twice (title, titles), two more bytes each time.
    expect(wide.length - ascii.length).toBe(4);
    expect(wide.bytes - ascii.bytes).toBe(4);
  });

  it('keeps the most recently used within its bytes', () => {
    const one = createEntryCache();
    one.json(timed(1));
    const perEntry = one.size.bytes;
    const cache = createEntryCache(perEntry * 3);
    for (const n of [1, 2, 3]) cache.json(timed(n));
    cache.json(timed(1)); // used again: 2 is now the least recently used
    cache.json(timed(4));
    expect([1, 2, 3, 4].map((n) => cache.has(timed(n)))).toEqual([true, false, true, true]);
    expect(cache.size.bytes).toBeLessThanOrEqual(perEntry * 3);
    // Asked for again, 2 is made anew and 3, the least recently used now, goes.
    cache.json(timed(2));
    expect([1, 2, 3, 4].map((n) => cache.has(timed(n)))).toEqual([true, true, false, true]);
  });
});
