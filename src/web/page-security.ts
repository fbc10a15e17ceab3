import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * The security headers of every HTML page: a Content-Security-Policy that allows scripts,
 * styles and connections to this site only (no inline script, nothing from other sites).
 */
export function pageHelmetOptions(https: boolean): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    // HSTS only means something (and is only safe to send) on an https deployment.
    strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
    // Links (with their tokens) never leak to other sites. Not `no-referrer`: browsers then
    // send `Origin: null` with our own forms, which the same-origin check must refuse.
    referrerPolicy: { policy: 'same-origin' },
  };
}
