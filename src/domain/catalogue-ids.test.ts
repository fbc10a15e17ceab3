import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  channelIdFor,
  isUuid,
  programmeIdFor,
  programmeIdOfSlot,
  programmeSlotKey,
} from './catalogue-ids.js';
import { sha256HexWith } from './sha256.js';

describe('catalogue ids', () => {
  it('programme ids are 19 digits from SHA-256 of channel id, NUL, start key', () => {
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

  it('the parts the staging worker is built from give the same ids, with or without crypto.hash', () => {
    const channel = channelIdFor('arte.fr');
    const withoutOneShot = { createHash: crypto.createHash } as unknown as typeof crypto;
    // Rebuilt from source text, as the worker builds them.
    const rebuilt = new Function(
      'nodeCrypto',
      `const programmeSlotKey = ${programmeSlotKey.toString()};
       const programmeIdOfSlot = ${programmeIdOfSlot.toString()};
       const sha256Hex = (${sha256HexWith.toString()})(nodeCrypto);
       return (channelId, start) => programmeIdOfSlot(sha256Hex, programmeSlotKey(channelId, start));`,
    ) as (nodeCrypto: typeof crypto) => (channelId: string, start: string) => string;
    for (const start of ['20260301080000 +0000', 'later', 'Ünïcode ✓']) {
      const expected = programmeIdFor(channel, start);
      expect(rebuilt(crypto)(channel, start)).toBe(expected);
      expect(rebuilt(withoutOneShot)(channel, start)).toBe(expected);
    }
  });

  it('channel ids are stable UUIDs of the XMLTV id', () => {
    expect(channelIdFor('bbc1.uk')).toBe(channelIdFor('bbc1.uk'));
    expect(channelIdFor('bbc1.uk')).not.toBe(channelIdFor('bbc2.uk'));
    expect(isUuid(channelIdFor('Das Erste'))).toBe(true);
  });
});
