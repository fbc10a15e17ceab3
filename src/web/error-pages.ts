import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignInService } from '../accounts/sign-in-service.js';
import type { SiteAddress } from '../http/site-address.js';
import { sendPage } from './page-helpers.js';
import { pageSecurityHeaders } from './page-security.js';
import { isHttpsSite, sessionCookieName } from './session-cookie.js';
import type { ErrorPages } from '../http/error-handler.js';
import type { SafeHtml } from './html.js';
import { badAddressPage, notFoundPage } from './views/sign-in-pages.js';

export interface ErrorPagesDeps {
  signIn: Pick<SignInService, 'findSignedIn'>;
  site: SiteAddress;
}

/**
 * The site's error pages, for addresses outside the API and the feeds: 404 for an unknown path
 * (a mistyped `/account/…`, a GET of a form's address) and 400 for an address that cannot be
 * read (a broken %-escape). The app's not-found handler and Fastify's framework errors call
 * them, outside the pages' plugin, so they set the pages' headers themselves and read the
 * session cookie by hand.
 */
export function createErrorPages(deps: ErrorPagesDeps): ErrorPages {
  async function signedIn(request: FastifyRequest): Promise<boolean> {
    const header = request.headers.cookie;
    if (header === undefined) return false;
    const sessionId = fastifyCookie.parse(header)[sessionCookieName(deps.site)];
    if (sessionId === undefined) return false;
    try {
      return (await deps.signIn.findSignedIn(sessionId)) !== null;
    } catch {
      // The header's links are all this needs the session for: an error page never fails over it.
      return false;
    }
  }

  const answer =
    (status: number, body: (signedIn: boolean) => SafeHtml) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      reply.headers(pageSecurityHeaders(isHttpsSite(deps.site)));
      reply.header('Cache-Control', 'no-store');
      return sendPage(reply, status, body(await signedIn(request)));
    };
  return { notFound: answer(404, notFoundPage), badAddress: answer(400, badAddressPage) };
}
