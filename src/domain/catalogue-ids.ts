import { v5 as uuidv5 } from 'uuid';
import { sha256 } from './sha256.js';

/** Fixed namespace for channel ids: the same XMLTV id gives the same UUID in every deployment. */
export const CHANNEL_NAMESPACE = '4f6b9a52-3c1e-5d8a-9e27-0b7c1d2e3f40';

/** Channel id: UUID v5 of the XMLTV channel id. */
export function channelIdFor(xmltvId: string): string {
  return uuidv5(xmltvId, CHANNEL_NAMESPACE);
}

const ID_BASE = 1_000_000_000_000_000_000n; // 10^18: every id has exactly 19 digits
const ID_SPAN = 8_000_000_000_000_000_000n; // keeps ids below 2^63 for engines with int64

/**
 * Programme id: 19 decimal digits derived from (channel id, start). `startKey` is the UTC form
 * of the start when it parses, else the raw text, so the same slot keeps its id across
 * re-ingests. Fixed width makes text order equal numeric order.
 */
export function programmeIdFor(channelId: string, startKey: string): string {
  const digest = sha256(`${channelId}\0${startKey}`);
  const value = digest.readBigUInt64BE(0) % ID_SPAN;
  return (ID_BASE + value).toString();
}

/** True when the text is a UUID in canonical form (any version). */
export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}
