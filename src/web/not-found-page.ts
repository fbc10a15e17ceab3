import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignInService } from '../accounts/sign-in-service.js';
import type { SiteAddress } from '../http/site-address.js';
import { sendPage } from './page-helpers.js';
import { pageSecurityHeaders } from './page-security.js';
import { isHttpsSite, sessionCookieName } from './session-cookie.js';
import { notFoundPage } from './views/sign-in-pages.js';

export interface NotFoundPageDeps {
  signIn: Pick<SignInService, 'findSignedIn'>;
  site: SiteAddress;
}

/**
 * The site's 404 page, for an unknown path outside the API and the feeds (a mistyped
 * `/account/…`, a GET of a form's address). The app's not-found handler calls it, outside the
 * pages' plugin, so it sets the pages' headers itself and reads the session cookie by hand.
 */
export function createNotFoundPage(
  deps: NotFoundPageDeps,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  async function signedIn(request: FastifyRequest): Promise<boolean> {
    const header = request.headers.cookie;
    if (header === undefined) return false;
    const sessionId = fastifyCookie.parse(header)[sessionCookieName(deps.site)];
    if (sessionId === undefined) return false;
    try {
      return (await deps.signIn.findSignedIn(sessionId)) !== null;
    } catch {
      // The header's links are all this needs the session for: a 404 never fails over it.
      return false;
    }
  }

  return async (request, reply) => {
    reply.headers(pageSecurityHeaders(isHttpsSite(deps.site)));
    reply.header('Cache-Control', 'no-store');
    return sendPage(reply, 404, notFoundPage(await signedIn(request)));
  };
}
