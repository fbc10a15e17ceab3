import { describe, expect, it } from 'vitest';
import { createEmptySpans } from './empty-spans.js';

describe('empty spans of start times', () => {
  it('skips to the end of the span holding a time, and nowhere else', () => {
    const spans = createEmptySpans(10);
    spans.learn(100, 200);
    expect(spans.skip(99)).toBe(99);
    expect(spans.skip(100)).toBe(200);
    expect(spans.skip(150)).toBe(200);
    expect(spans.skip(199)).toBe(200);
    expect(spans.skip(200)).toBe(200);
    expect(spans.skip(201)).toBe(201);
  });

  it('merges spans that overlap or touch, and keeps apart those that do not', () => {
    const spans = createEmptySpans(10);
    spans.learn(300, 400);
    spans.learn(100, 200);
    spans.learn(500, 600);
    expect(spans.size).toBe(3);
    spans.learn(200, 250); // touches the first
    expect(spans.skip(120)).toBe(250);
    spans.learn(350, 550); // overlaps the second and third
    expect(spans.size).toBe(2);
    expect(spans.skip(300)).toBe(600);
    expect(spans.skip(260)).toBe(260);
    spans.learn(50, 700); // covers all
    expect(spans.size).toBe(1);
    expect(spans.skip(50)).toBe(700);
    spans.learn(10, 10); // empty: nothing learnt
    expect(spans.skip(10)).toBe(10);
  });

  it('agrees with a plain list of known times, whatever the order spans are learnt in', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 50; round++) {
      const spans = createEmptySpans(1000);
      const empty = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const from = random(200);
        const to = from + random(30);
        spans.learn(from, to);
        for (let t = from; t < to; t++) empty.add(t);
      }
      for (let at = 0; at < 240; at++) {
        let end = at;
        while (empty.has(end)) end++;
        expect(spans.skip(at), `round ${round}, at ${at}`).toBe(end);
      }
    }
  });

  it('forgets everything beyond its bound', () => {
    const spans = createEmptySpans(2);
    spans.learn(0, 1);
    spans.learn(2, 3);
    spans.learn(4, 5);
    expect(spans.size).toBe(0);
    expect(spans.skip(0)).toBe(0);
  });
});
