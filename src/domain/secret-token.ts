import { randomBytes } from 'node:crypto';
import { sha256Hex } from './sha256.js';

/**
 * Sign-in link tokens and session ids: 32 random bytes, base64url. Only their SHA-256 is
 * stored, so a copy of the database cannot be used to sign in; with 256 bits of randomness a
 * fast hash is enough.
 */
export function generateSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecretToken(token: string): string {
  return sha256Hex(token);
}

/** Shape check before any database read: 43 base64url characters. */
export function isWellFormedSecretToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}
