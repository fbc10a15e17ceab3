import type { FastifyInstance } from 'fastify';

/**
 * Headers every response carries, JSON and errors included: nothing is sniffed as another type,
 * framed, or given a referrer, and no content may load anything. The account pages set a
 * richer policy of their own (helmet, in web-routes.ts); these only fill in what a response
 * does not already have, so the pages keep theirs.
 */
export function securityHeaders(https: boolean): Readonly<Record<string, string>> {
  return Object.freeze({
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    // Only an https deployment may promise browsers to stay on https.
    ...(https ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  });
}

/** Adds the security headers to every reply the app sends (routes, errors, 404s, 304s). */
export function registerSecurityHeaders(app: FastifyInstance, https: boolean): void {
  const headers = Object.entries(securityHeaders(https));
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of headers) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    return payload;
  });
}
