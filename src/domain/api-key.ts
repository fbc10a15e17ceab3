import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256Hex } from './sha256.js';

/**
 * API keys look like `onair_<32 base62 chars><6 base62 checksum chars>`. The prefix makes a
 * leaked key recognisable to secret scanners; the CRC-32 checksum lets the server refuse
 * garbage without reading the database. Only the SHA-256 of a key is ever stored: keys carry
 * ~190 bits of randomness, so a fast hash is enough and keeps the lookup cheap.
 */
export const KEY_PREFIX = 'onair_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const WELL_FORMED = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function randomBody(): string {
  // Rejection sampling keeps every character uniformly distributed (248 = 4 × 62).
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(BODY_LENGTH * 2)) {
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return body;
}

/** Creates a new random key. */
export function generateApiKey(): string {
  const body = randomBody();
  return KEY_PREFIX + body + checksum(body);
}

/** True when the text has the shape and checksum of a key this service issues. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== KEY_LENGTH || !WELL_FORMED.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return checksum(body) === key.slice(KEY_PREFIX.length + BODY_LENGTH);
}

/** The stored lookup value of a key. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** What may be shown of a key after creation: its prefix and last four characters. */
export function describeApiKey(key: string): { prefix: string; lastFour: string } {
  return { prefix: key.slice(0, KEY_PREFIX.length + 4), lastFour: key.slice(-4) };
}
