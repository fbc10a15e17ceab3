import { describe, expect, it } from 'vitest';
import { channelIdFor, isUuid } from './catalogue-ids.js';

describe('channel ids', () => {
  it('are stable UUIDs of the XMLTV id', () => {
    expect(channelIdFor('bbc1.uk')).toBe(channelIdFor('bbc1.uk'));
    expect(channelIdFor('bbc1.uk')).not.toBe(channelIdFor('bbc2.uk'));
    expect(isUuid(channelIdFor('Das Erste'))).toBe(true);
  });
});
