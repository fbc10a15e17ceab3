import type { IncomingHttpHeaders } from 'node:http';

const BEARER = /^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i;

/**
 * The API key a request presents: `Authorization: Bearer <key>` (scheme case-insensitive) or
 * `X-API-Key: <key>`. Returns null when there is none, or when both headers carry different
 * keys (refused rather than guessing which one was meant). Query-string keys are ignored on
 * purpose: URLs end up in logs and browser histories.
 */
export function apiKeyFromHeaders(headers: IncomingHttpHeaders): string | null {
  const authorization = headers.authorization;
  let bearer: string | null = null;
  if (typeof authorization === 'string' && authorization !== '') {
    const match = BEARER.exec(authorization);
    // An Authorization header with another scheme or a malformed value is an invalid key.
    bearer = match?.[1] ?? '';
  }
  const rawHeader = headers['x-api-key'];
  const headerKey =
    typeof rawHeader === 'string' && rawHeader.trim() !== '' ? rawHeader.trim() : null;
  if (bearer !== null && headerKey !== null && bearer !== headerKey) return null;
  const key = bearer ?? headerKey;
  return key === '' ? null : key;
}
