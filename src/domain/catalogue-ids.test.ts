import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { channelIdFor, isUuid, programmeIdFor } from './catalogue-ids.js';

describe('catalogue ids', () => {
  it('programme ids are 19 digits from SHA-256 of channel id, NUL, start key', () => {
    const channel = channelIdFor('bbc1.uk');
    for (const start of ['20260301080000 +0000', 'soon', '', 'Ünïcode ✓']) {
      const digest = createHash('sha256').update(channel).update('\0').update(start).digest();
      const expected = (
        1_000_000_000_000_000_000n +
        (digest.readBigUInt64BE(0) % 8_000_000_000_000_000_000n)
      ).toString();
      expect(programmeIdFor(channel, start), start).toBe(expected);
      expect(expected).toMatch(/^\d{19}$/);
    }
  });

  it('channel ids are stable UUIDs of the XMLTV id', () => {
    expect(channelIdFor('bbc1.uk')).toBe(channelIdFor('bbc1.uk'));
    expect(channelIdFor('bbc1.uk')).not.toBe(channelIdFor('bbc2.uk'));
    expect(isUuid(channelIdFor('Das Erste'))).toBe(true);
  });
});
