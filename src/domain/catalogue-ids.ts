import { v5 as uuidv5 } from 'uuid';
import { sha256Hex } from './sha256.js';

/** Fixed namespace for channel ids: the same XMLTV id gives the same UUID in every deployment. */
export const CHANNEL_NAMESPACE = '4f6b9a52-3c1e-5d8a-9e27-0b7c1d2e3f40';

/** Channel id: UUID v5 of the XMLTV channel id. */
export function channelIdFor(xmltvId: string): string {
  return uuidv5(xmltvId, CHANNEL_NAMESPACE);
}

/**
 * What a programme's id is made from: its channel id and `startKey`, the UTC form of its start
 * when it parses, else the raw text, so the same slot keeps its id across re-ingests. Two
 * programmes share an id exactly when they share this key.
 */
export function programmeSlotKey(channelId: string, startKey: string): string {
  return `${channelId}\0${startKey}`;
}

/**
 * Programme id of a slot (channel id, start key; see programmeSlotKey), on both engines: the
 * first 64 bits (16 hex digits) of the key's SHA-256, as 19 decimal digits (fixed width makes
 * text order equal numeric order), below 2^63 for engines with int64.
 */
export function programmeIdFor(channelId: string, startKey: string): string {
  const digest = sha256Hex(programmeSlotKey(channelId, startKey));
  const value = BigInt(`0x${digest.slice(0, 16)}`) % 8_000_000_000_000_000_000n;
  return (1_000_000_000_000_000_000n + value).toString();
}

/** True when the text is a UUID in canonical form (any version). */
export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}
