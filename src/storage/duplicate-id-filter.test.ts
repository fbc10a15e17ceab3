import { describe, expect, it } from 'vitest';
import { channelIdFor } from '../domain/catalogue-ids.js';
import { programmeIdFor } from '../domain/programme-id.js';
import { DuplicateIdFilter } from './duplicate-id-filter.js';

describe('DuplicateIdFilter', () => {
  it('flags every id added before', () => {
    const filter = new DuplicateIdFilter();
    const ids = Array.from({ length: 5000 }, (_, i) => `id-${i}`);
    for (const id of ids) filter.add(id);
    for (const id of ids) expect(filter.add(id), id).toBe(true);
    expect(filter.add('')).toBe(false);
    expect(filter.add('')).toBe(true);
  });

  it('says "new" for nearly every id it has not seen', () => {
    const filter = new DuplicateIdFilter();
    const channel = channelIdFor('bbc1.uk');
    let flagged = 0;
    // 300,000 distinct programme ids: the expected number of false positives is far below 1.
    for (let i = 0; i < 300_000; i++) {
      if (filter.add(programmeIdFor(channel, String(20260101000000 + i)))) flagged++;
    }
    expect(flagged).toBeLessThanOrEqual(1);
  });

  it('adds a key after its prefix as it adds the whole key', () => {
    const whole = new DuplicateIdFilter();
    const parts = new DuplicateIdFilter();
    const channel = `${channelIdFor('bbc1.uk')}\0`;
    const prefix = parts.prefix(channel);
    const starts = Array.from({ length: 2000 }, (_, i) => String(20260101000000 + i * 37));
    for (const start of starts) {
      expect(parts.addAfter(prefix, start), start).toBe(whole.add(channel + start));
    }
    // Each knows the other's keys: the same bits were set.
    for (const start of starts) {
      expect(whole.addAfter(whole.prefix(channel), start)).toBe(true);
      expect(parts.add(channel + start)).toBe(true);
    }
    expect(parts.addAfter(prefix, 'never added')).toBe(false);
    expect(whole.add(`${channel}never added`)).toBe(false);
  });

  it('adds instants after a prefix, with as few false positives as text keys', () => {
    const filter = new DuplicateIdFilter();
    const start = Date.UTC(2026, 0, 1);
    let flagged = 0;
    // 300,000 distinct (channel, start) keys, every half hour of 100 days on 3,000 channels.
    for (let c = 0; c < 300; c++) {
      const prefix = filter.prefix(`${channelIdFor(`channel-${c}`)}\0`);
      for (let i = 0; i < 1000; i++) {
        if (filter.addNumberAfter(prefix, start + i * 1_800_000)) flagged++;
      }
    }
    expect(flagged).toBeLessThanOrEqual(1);
    const prefix = filter.prefix(`${channelIdFor('channel-7')}\0`);
    for (let i = 0; i < 1000; i++) {
      expect(filter.addNumberAfter(prefix, start + i * 1_800_000)).toBe(true);
    }
    expect(filter.addNumberAfter(prefix, start - 1_800_000)).toBe(false);
  });
});
