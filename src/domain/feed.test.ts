import { describe, expect, it } from 'vitest';
import {
  checkFeedSettings,
  feedSettingsProblems,
  feedWindow,
  FeedSettingsError,
  lineupKey,
} from './feed.js';

const base = { name: ' Living room ', daysAhead: 7, daysBack: 1 };

describe('feed settings', () => {
  it('cleans the name, drops repeated channels keeping the first place, upper-cases a country', () => {
    expect(
      checkFeedSettings({ ...base, lineup: { kind: 'channels', channelIds: ['b', 'a', 'b'] } }),
    ).toEqual({
      ...base,
      name: 'Living room',
      lineup: { kind: 'channels', channelIds: ['b', 'a'] },
    });
    expect(
      checkFeedSettings({ ...base, lineup: { kind: 'country', country: 'ie' } }).lineup,
    ).toEqual({ kind: 'country', country: 'IE' });
  });

  it('refuses an empty name, no channels, more than 1,000, days out of range or not whole', () => {
    const channels = (n: number) => ({
      kind: 'channels' as const,
      channelIds: Array.from({ length: n }, (_, i) => `c${i}`),
    });
    for (const bad of [
      { ...base, name: ' \u0007 ', lineup: channels(1) },
      { ...base, lineup: channels(0) },
      { ...base, lineup: channels(1001) },
      { ...base, daysAhead: 0, lineup: channels(1) },
      { ...base, daysAhead: 15, lineup: channels(1) },
      { ...base, daysBack: 8, lineup: channels(1) },
      { ...base, daysBack: 0.5, lineup: channels(1) },
      { ...base, lineup: { kind: 'country' as const, country: 'no way' } },
    ]) {
      expect(() => checkFeedSettings(bad), JSON.stringify(bad).slice(0, 80)).toThrow(
        FeedSettingsError,
      );
    }
    expect(checkFeedSettings({ ...base, lineup: channels(1000) }).lineup).toEqual(channels(1000));
  });

  it('tells every refused setting at once, and checkFeedSettings the first of them', () => {
    const bad = {
      name: '  ',
      lineup: { kind: 'channels' as const, channelIds: [] },
      daysAhead: 15,
      daysBack: -1,
    };
    expect(feedSettingsProblems(bad)).toEqual({
      name: 'give the feed a name',
      lineup: 'pick at least one channel',
      daysAhead: 'days ahead must be a whole number from 1 to 14',
      daysBack: 'days back must be a whole number from 0 to 7',
    });
    expect(() => checkFeedSettings(bad)).toThrow('give the feed a name');
    expect(() =>
      checkFeedSettings({ ...bad, name: 'x', lineup: { kind: 'country', country: 'IE' } }),
    ).toThrow('days ahead must be a whole number from 1 to 14');
    expect(feedSettingsProblems({ ...base, lineup: { kind: 'country', country: 'IE' } })).toEqual(
      {},
    );
  });

  it('holds programmes starting from the start of today minus daysBack to now plus daysAhead', () => {
    const now = Date.UTC(2026, 2, 10, 15, 30);
    expect(feedWindow({ daysAhead: 7, daysBack: 1 }, now)).toEqual({
      fromMs: Date.UTC(2026, 2, 9),
      toMs: Date.UTC(2026, 2, 17, 15, 30),
    });
    expect(feedWindow({ daysAhead: 1, daysBack: 0 }, now).fromMs).toBe(Date.UTC(2026, 2, 10));
  });

  it('names a lineup by its channels in order', () => {
    const key = (ids: string[]) => lineupKey({ kind: 'channels', channelIds: ids });
    expect(key(['a', 'b'])).toBe(key(['a', 'b']));
    expect(key(['a', 'b'])).not.toBe(key(['b', 'a']));
    expect(lineupKey({ kind: 'country', country: 'IE' })).toBe('country:IE');
  });
});
