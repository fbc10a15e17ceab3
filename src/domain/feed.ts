import { randomBytes } from 'node:crypto';
import { isValidCountryCode } from './country.js';
import { cleanName } from './display-text.js';
import { DAY_MS, startOfUtcDay } from './schedule-window.js';
import { sha256Hex } from './sha256.js';

/** Guide feeds: an account's lineup published as an XMLTV URL a media server can poll. */

export const MAX_FEEDS_PER_ACCOUNT = 10;
export const MAX_LINEUP_CHANNELS = 1000;
export const MAX_FEED_NAME_LENGTH = 100;
export const DAYS_AHEAD = { min: 1, max: 14, default: 7 } as const;
export const DAYS_BACK = { min: 0, max: 7, default: 1 } as const;
/** Fetches of one feed per budget window, by default (media servers poll a few times a day). */
export const DEFAULT_FEED_FETCH_LIMIT = 60;
export const FEED_WINDOW_MS = 3_600_000;

/** The channels of a feed: chosen ones in the holder's order, or a whole country's. */
export type Lineup =
  { kind: 'channels'; channelIds: readonly string[] } | { kind: 'country'; country: string };

export interface Feed {
  id: string;
  accountId: string;
  name: string;
  lineup: Lineup;
  daysAhead: number;
  daysBack: number;
  createdAt: number;
  updatedAt: number;
}

/** What a holder or operator asks for; checked by checkFeedSettings. */
export interface FeedSettings {
  name: string;
  lineup: Lineup;
  daysAhead: number;
  daysBack: number;
}

/** A setting that cannot be kept; the message says which and why, for pages and the CLI. */
export class FeedSettingsError extends Error {
  override name = 'FeedSettingsError';
}

/** A feed name as kept: control characters dropped, trimmed, at most MAX_FEED_NAME_LENGTH. */
export function cleanFeedName(text: string): string {
  return cleanName(text, MAX_FEED_NAME_LENGTH);
}

/** Why `value` is refused as `what` (a count of days in `range`), or null when it is not. */
export function wholeIn(
  value: number,
  range: { min: number; max: number },
  what: string,
): string | null {
  return Number.isInteger(value) && value >= range.min && value <= range.max
    ? null
    : `${what} must be a whole number from ${range.min} to ${range.max}`;
}

/** A field of the settings, as a form names its inputs. */
export type FeedSettingsField = keyof FeedSettings;

/**
 * Every setting the rules refuse, each with why (the words of FeedSettingsError), in the order
 * checkFeedSettings reports them: a form shows them all at once, each beside its input.
 */
export function feedSettingsProblems(
  settings: FeedSettings,
): Partial<Record<FeedSettingsField, string>> {
  const problems: Partial<Record<FeedSettingsField, string>> = {};
  if (cleanFeedName(settings.name) === '') problems.name = 'give the feed a name';
  try {
    checkLineup(settings.lineup);
  } catch (error) {
    if (!(error instanceof FeedSettingsError)) throw error;
    problems.lineup = error.message;
  }
  const daysAhead = wholeIn(settings.daysAhead, DAYS_AHEAD, 'days ahead');
  if (daysAhead !== null) problems.daysAhead = daysAhead;
  const daysBack = wholeIn(settings.daysBack, DAYS_BACK, 'days back');
  if (daysBack !== null) problems.daysBack = daysBack;
  return problems;
}

/**
 * The settings as stored: name cleaned and not empty, days in range, a lineup of 1 to
 * MAX_LINEUP_CHANNELS channels (repeats dropped, first place kept) or a valid country code.
 * Whether the channels exist is the caller's question (it needs the catalogue).
 */
export function checkFeedSettings(settings: FeedSettings): FeedSettings {
  const first = Object.values(feedSettingsProblems(settings))[0];
  if (first !== undefined) throw new FeedSettingsError(first);
  return {
    name: cleanFeedName(settings.name),
    lineup: checkLineup(settings.lineup),
    daysAhead: settings.daysAhead,
    daysBack: settings.daysBack,
  };
}

export function checkLineup(lineup: Lineup): Lineup {
  if (lineup.kind === 'country') {
    if (!isValidCountryCode(lineup.country)) {
      throw new FeedSettingsError(`"${lineup.country}" is not a country code`);
    }
    return { kind: 'country', country: lineup.country.toUpperCase() };
  }
  const channelIds = [...new Set(lineup.channelIds.map((id) => id.trim()))];
  if (channelIds.length === 0) throw new FeedSettingsError('pick at least one channel');
  if (channelIds.length > MAX_LINEUP_CHANNELS) {
    throw new FeedSettingsError(`a feed holds at most ${MAX_LINEUP_CHANNELS} channels`);
  }
  return { kind: 'channels', channelIds };
}

/**
 * Feed tokens: 32 random bytes (256 bits), base64url, in the feed's URL. Only the SHA-256 is
 * stored, as for API keys; with that much randomness a fast hash is enough.
 */
export function generateFeedToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashFeedToken(token: string): string {
  return sha256Hex(token);
}

/** The two URLs of a feed token under the public address. */
export function feedUrls(publicUrl: string, token: string): { xml: string; gz: string } {
  const xml = `${publicUrl}/feeds/${token}/guide.xml`;
  return { xml, gz: `${xml}.gz` };
}

/**
 * The programmes a feed holds at `nowMs`: those starting in [start of today (UTC) − daysBack,
 * now + daysAhead).
 */
export function feedWindow(
  feed: Pick<Feed, 'daysAhead' | 'daysBack'>,
  nowMs: number,
): { fromMs: number; toMs: number } {
  return {
    fromMs: startOfUtcDay(nowMs) - feed.daysBack * DAY_MS,
    toMs: nowMs + feed.daysAhead * DAY_MS,
  };
}

/** A text naming the lineup exactly: feeds with the same one share their generated guide. */
export function lineupKey(lineup: Lineup): string {
  return lineup.kind === 'country'
    ? `country:${lineup.country}`
    : `channels:${sha256Hex(lineup.channelIds.join('\n'))}`;
}
