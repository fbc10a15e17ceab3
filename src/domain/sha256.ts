import * as crypto from 'node:crypto';

// Programme ids at ingest and key lookups on every request hash short strings: the one-shot
// crypto.hash (Node >= 20.12) is two to three times as fast as createHash for them.
// Same bytes, same digest.

/**
 * SHA-256 as lower-case hex, of a `node:crypto` module. Self-contained (it refers to nothing
 * outside its body), so the SQLite staging worker, built from source text, runs this very code.
 * Hex rather than a Buffer: a Buffer per call made hashing programme ids more than twice as
 * slow (bench/INGEST.md).
 */
export function sha256HexWith(nodeCrypto: typeof crypto): (text: string) => string {
  const hash = (nodeCrypto as { hash?: typeof crypto.hash }).hash;
  return typeof hash === 'function'
    ? (text) => hash('sha256', text, 'hex')
    : (text) => nodeCrypto.createHash('sha256').update(text).digest('hex');
}

/** SHA-256 of a string's UTF-8 bytes, as lower-case hex. */
export const sha256Hex = sha256HexWith(crypto);
