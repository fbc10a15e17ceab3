import type { FastifyHelmetOptions } from '@fastify/helmet';

/** Scripts, styles and connections from this site only: no inline script, nothing elsewhere. */
const PAGE_CSP_DIRECTIVES: Readonly<Record<string, readonly string[]>> = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** A year, for HSTS. */
const HSTS_MAX_AGE = 31_536_000;

/**
 * The security headers of every HTML page: a Content-Security-Policy that allows scripts,
 * styles and connections to this site only (no inline script, nothing from other sites).
 */
export function pageHelmetOptions(https: boolean): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: Object.fromEntries(
        Object.entries(PAGE_CSP_DIRECTIVES).map(([name, values]) => [name, [...values]]),
      ),
    },
    // HSTS only means something (and is only safe to send) on an https deployment.
    strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE } : false,
    // Links (with their tokens) never leak to other sites. Not `no-referrer`: browsers then
    // send `Origin: null` with our own forms, which the same-origin check must refuse.
    referrerPolicy: { policy: 'same-origin' },
  };
}

/**
 * The headers helmet sends with pageHelmetOptions, for the one page answered outside the
 * pages' plugin: the site's 404 (the app's not-found handler has no helmet). A test compares
 * them with helmet's, header by header.
 */
export function pageSecurityHeaders(https: boolean): Readonly<Record<string, string>> {
  const csp = Object.entries(PAGE_CSP_DIRECTIVES)
    .map(
      ([name, values]) =>
        `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`,
    )
    .join(';');
  return Object.freeze({
    'Content-Security-Policy': csp,
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Origin-Agent-Cluster': '?1',
    'Referrer-Policy': 'same-origin',
    ...(https ? { 'Strict-Transport-Security': `max-age=${HSTS_MAX_AGE}; includeSubDomains` } : {}),
    'X-Content-Type-Options': 'nosniff',
    'X-DNS-Prefetch-Control': 'off',
    'X-Download-Options': 'noopen',
    'X-Frame-Options': 'SAMEORIGIN',
    'X-Permitted-Cross-Domain-Policies': 'none',
    'X-XSS-Protection': '0',
  });
}
