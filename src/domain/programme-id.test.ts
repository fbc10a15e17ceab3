import type * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { channelIdFor } from './catalogue-ids.js';
import { programmeIdFor } from './programme-id.js';

describe('programme ids', () => {
  it('are 19 digits from SHA-256 of channel id, NUL, start key', () => {
    const channel = channelIdFor('bbc1.uk');
    const many = Array.from(
      { length: 2000 },
      (_, i) => `2026${String(i * 7919).padStart(10, '0')} +0${i % 10}00`,
    );
    for (const start of ['20260301080000 +0000', 'soon', '', 'Ünïcode ✓', ...many]) {
      const digest = createHash('sha256').update(channel).update('\0').update(start).digest();
      const expected = (
        1_000_000_000_000_000_000n +
        (digest.readBigUInt64BE(0) % 8_000_000_000_000_000_000n)
      ).toString();
      expect(programmeIdFor(channel, start), start).toBe(expected);
      expect(expected).toMatch(/^\d{19}$/);
    }
  });

  it('are the same without crypto.hash (Node < 20.12), through createHash', async () => {
    const channel = channelIdFor('arte.fr');
    const starts = ['20260301080000 +0000', 'later', 'Ünïcode ✓'];
    const expected = starts.map((start) => programmeIdFor(channel, start));
    vi.resetModules();
    vi.doMock('node:crypto', async (original) => ({
      ...(await original<typeof crypto>()),
      hash: undefined,
    }));
    try {
      const fresh = await import('./programme-id.js');
      expect(starts.map((start) => fresh.programmeIdFor(channel, start))).toEqual(expected);
    } finally {
      vi.doUnmock('node:crypto');
      vi.resetModules();
    }
  });
});
