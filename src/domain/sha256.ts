import * as crypto from 'node:crypto';

// Programme ids at ingest and key lookups on every request hash short strings: the one-shot
// crypto.hash (Node >= 20.12) is two to three times as fast as createHash for them.
// Same bytes, same digest.
const oneShotHash = (crypto as { hash?: typeof crypto.hash }).hash;

/** SHA-256 of a string's UTF-8 bytes. */
export function sha256(text: string): Buffer {
  return typeof oneShotHash === 'function'
    ? oneShotHash('sha256', text, 'buffer')
    : crypto.createHash('sha256').update(text).digest();
}

/** SHA-256 of a string's UTF-8 bytes, as lower-case hex. */
export function sha256Hex(text: string): string {
  return typeof oneShotHash === 'function'
    ? oneShotHash('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text).digest('hex');
}
