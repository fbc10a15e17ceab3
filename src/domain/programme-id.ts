import { sha256Hex } from './sha256.js';

// Apart from the channel ids (catalogue-ids.ts), which need the uuid package: the SQLite
// staging thread loads this at the start of every ingest, and loading uuid's two dozen modules
// there made a thread's start slower.

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

/** Whether `text` has the form of a programme id (programmeIdFor): 19 decimal digits. */
export function isProgrammeId(text: string): boolean {
  return /^[1-8][0-9]{18}$/.test(text);
}
