import type { FastifyInstance, FastifyReply } from 'fastify';

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

/** Sets the security headers a reply does not have yet. */
export function applySecurityHeaders(
  reply: FastifyReply,
  headers: Readonly<Record<string, string>>,
): void {
  for (const name in headers) {
    if (!reply.hasHeader(name)) reply.header(name, headers[name]);
  }
}

/**
 * Adds the security headers to every reply that passes the app's hooks (routes, errors, 404s,
 * 304s). Replies to URLs the router cannot decode skip the hooks: app.ts applies them there.
 */
export function registerSecurityHeaders(
  app: FastifyInstance,
  headers: Readonly<Record<string, string>>,
): void {
  // A callback hook, not an async one: it runs for every response, and needs no promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    applySecurityHeaders(reply, headers);
    done(null, payload);
  });
}
