import { resolve } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  accountStatus,
  cleanKeyName,
  issueAuditedApiKey,
  revokeAuditedApiKey,
} from '../accounts/account-service.js';
import type { SignedIn, SignInService } from '../accounts/sign-in-service.js';
import { PROJECT_ROOT } from '../config.js';
import { isUuid } from '../domain/catalogue-ids.js';
import { parseEmailAddress } from '../domain/email-address.js';
import { errors } from '../domain/errors.js';
import { MAX_FEEDS_PER_ACCOUNT } from '../domain/feed.js';
import { retryAfterSeconds } from '../domain/rate-window.js';
import { DAY_MS } from '../domain/schedule-window.js';
import { toAppError } from '../http/error-handler.js';
import type { SiteAddress } from '../http/site-address.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { Store } from '../storage/store.js';
import { formField, sendPage } from './page-helpers.js';
import { registerFeedPages } from './feed-page-routes.js';
import { pageHelmetOptions } from './page-security.js';
import { isSameOriginRequest } from './same-origin.js';
import { accountPage, keyCreatedPage } from './views/account-pages.js';
import {
  confirmPage,
  homePage,
  linkSentPage,
  linkUnusablePage,
  messagePage,
  signInPage,
  tooManyLinksPage,
} from './views/sign-in-pages.js';

/** Most keys an account may hold at once (revoked keys do not count). */
export const MAX_ACTIVE_KEYS = 10;
/** Sign-in links per address, and per client IP, in one window of the sign-in limiter. */
export const SIGN_IN_LINKS_PER_ADDRESS = 5;
export const SIGN_IN_LINKS_PER_IP = 30;

/** What the account pages need; chosen once at start-up. */
export interface WebDeps {
  store: Store;
  signIn: SignInService;
  /** Counts sign-in link requests (15-minute windows) per address and per client IP. */
  signInLimiter: RateLimiter;
  site: SiteAddress;
  now: () => number;
}

const NOTICES: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'Every session of your account has ended, this one included.',
  'key-revoked': 'The key is revoked. Requests made with it are refused from now on.',
  'feed-saved': 'The feed is saved. Media servers get the new lineup at their next fetch.',
  'feed-deleted': 'The feed is deleted. Its address is refused from now on.',
};

/**
 * The customer-facing pages: home, passwordless sign-in, and the account page with its keys.
 * Server-rendered and escaped, same-origin scripts only, every POST checked against forgery.
 */
export async function registerWebRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { store, signIn, site } = deps;
  const secureCookies = () => site.url.startsWith('https:');
  // `__Host-` makes the browser refuse the cookie unless it is Secure, host-only and on `/`.
  const cookieName = () => (secureCookies() ? '__Host-onair_session' : 'onair_session');

  await app.register(async (web) => {
    await web.register(fastifyCookie);
    await web.register(fastifyFormbody, { bodyLimit: 8 * 1024 });
    await web.register(fastifyHelmet, pageHelmetOptions(secureCookies()));
    await web.register(fastifyStatic, {
      root: resolve(PROJECT_ROOT, 'public'),
      prefix: '/assets/',
      index: false,
      maxAge: '1h',
    });

    web.addHook('onSend', async (_request, reply, payload) => {
      // Pages can hold personal data or a new key: never cache them anywhere.
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        reply.header('Cache-Control', 'no-store');
      }
      return payload;
    });
    web.addHook('preHandler', async (request) => {
      if (request.method === 'POST' && !isSameOriginRequest(request.headers, site.origin)) {
        throw errors.crossSiteRequest();
      }
    });
    web.setErrorHandler((error: unknown, request, reply) => {
      const appError = toAppError(error);
      if (appError.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'page failed');
      const title = appError.status >= 500 ? 'Something went wrong' : 'Request refused';
      return sendPage(reply, appError.status, messagePage(title, appError.message));
    });

    async function currentSession(request: FastifyRequest): Promise<SignedIn | null> {
      const sessionId = request.cookies[cookieName()];
      return sessionId === undefined ? null : signIn.findSignedIn(sessionId);
    }

    function clearSessionCookie(reply: FastifyReply): void {
      reply.clearCookie(cookieName(), {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies(),
      });
    }

    const apiBase = () => `${site.url}/api/v1`;

    async function renderAccount(
      reply: FastifyReply,
      signedIn: SignedIn,
      status = 200,
      messages: { notice?: string; error?: string } = {},
    ): Promise<FastifyReply> {
      const nowMs = deps.now();
      const keys = (await store.accounts.listApiKeys(signedIn.account.id)).filter(
        (key) => key.revokedAt === null,
      );
      const usage = await store.accounts.usageSince(signedIn.account.id, nowMs - DAY_MS);
      const feeds = await store.feeds.listFeeds(signedIn.account.id);
      return sendPage(
        reply,
        status,
        accountPage({
          status: accountStatus(signedIn.account, nowMs),
          nowMs,
          keys,
          keyCap: MAX_ACTIVE_KEYS,
          feeds,
          feedCap: MAX_FEEDS_PER_ACCOUNT,
          usage,
          apiBase: apiBase(),
          ...messages,
        }),
      );
    }

    web.get('/', async (request, reply) =>
      sendPage(reply, 200, homePage(apiBase(), (await currentSession(request)) !== null)),
    );

    web.get('/signin', async (request, reply) => {
      if ((await currentSession(request)) !== null) return reply.redirect('/account', 303);
      return sendPage(
        reply,
        200,
        signInPage({ notice: NOTICES[formField(request.query, 'notice')] }),
      );
    });

    web.post('/signin', async (request, reply) => {
      const typed = formField(request.body, 'email');
      const email = parseEmailAddress(typed);
      if (email === null) {
        return sendPage(
          reply,
          400,
          signInPage({
            email: typed.slice(0, 254),
            error: 'Please enter an e-mail address like ann@example.com.',
          }),
        );
      }
      for (const [key, limit] of [
        [`signin-ip:${request.ip}`, SIGN_IN_LINKS_PER_IP],
        [`signin-email:${email.toLowerCase()}`, SIGN_IN_LINKS_PER_ADDRESS],
      ] as const) {
        const decision = await deps.signInLimiter.hit(key, limit);
        if (!decision.allowed) {
          const seconds = retryAfterSeconds(decision);
          reply.header('Retry-After', String(seconds));
          return sendPage(reply, 429, tooManyLinksPage(Math.ceil(seconds / 60)));
        }
      }
      await signIn.requestLink(email);
      return sendPage(reply, 200, linkSentPage(email));
    });

    web.get('/signin/confirm', async (request, reply) => {
      const token = formField(request.query, 'token');
      const email = await signIn.checkLink(token);
      if (email === null) return sendPage(reply, 400, linkUnusablePage());
      return sendPage(reply, 200, confirmPage(email, token));
    });

    web.post('/signin/confirm', async (request, reply) => {
      // A session that existed before sign-in is never carried over (session fixation).
      const previous = await currentSession(request);
      if (previous !== null) await signIn.signOut(previous.sessionHash);
      const confirmed = await signIn.confirmLink(formField(request.body, 'token'));
      if (confirmed === null) {
        clearSessionCookie(reply);
        return sendPage(reply, 400, linkUnusablePage());
      }
      reply.setCookie(cookieName(), confirmed.sessionId, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies(),
        maxAge: 30 * 24 * 60 * 60,
      });
      return reply.redirect('/account', 303);
    });

    web.post('/signout', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn !== null) await signIn.signOut(signedIn.sessionHash);
      clearSessionCookie(reply);
      return reply.redirect('/signin?notice=signed-out', 303);
    });

    web.get('/account', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn === null) return reply.redirect('/signin', 303);
      return renderAccount(reply, signedIn, 200, {
        notice: NOTICES[formField(request.query, 'notice')],
      });
    });

    web.post('/account/keys', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn === null) return reply.redirect('/signin', 303);
      const name = cleanKeyName(formField(request.body, 'name'));
      if (name === '') {
        return renderAccount(reply, signedIn, 400, {
          error: 'Give the key a name, e.g. production.',
        });
      }
      const active = (await store.accounts.listApiKeys(signedIn.account.id)).filter(
        (key) => key.revokedAt === null,
      );
      if (active.length >= MAX_ACTIVE_KEYS) {
        return renderAccount(reply, signedIn, 409, {
          error: errors.keyLimitReached(MAX_ACTIVE_KEYS).message,
        });
      }
      const nowMs = deps.now();
      const issued = await issueAuditedApiKey(
        store.accounts,
        signedIn.account.id,
        name,
        'account',
        nowMs,
      );
      return sendPage(reply, 201, keyCreatedPage(issued.record, issued.key, apiBase()));
    });

    web.post<{ Params: { keyId: string } }>(
      '/account/keys/:keyId/revoke',
      async (request, reply) => {
        const signedIn = await currentSession(request);
        if (signedIn === null) return reply.redirect('/signin', 303);
        // Key ids are UUIDs: anything else is no key, and never reaches the database.
        const key = isUuid(request.params.keyId)
          ? await store.accounts.findApiKey(request.params.keyId)
          : null;
        // Someone else's key is answered exactly like a key that does not exist.
        if (key === null || key.accountId !== signedIn.account.id) {
          return sendPage(
            reply,
            404,
            messagePage('Key not found', 'There is no such key in your account.', true),
          );
        }
        await revokeAuditedApiKey(store.accounts, key, 'account', deps.now());
        return reply.redirect('/account?notice=key-revoked', 303);
      },
    );

    await registerFeedPages(web, {
      store,
      site,
      now: deps.now,
      signedIn: async (request) => (await currentSession(request))?.account ?? null,
    });

    web.post('/account/sessions/end-all', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn === null) return reply.redirect('/signin', 303);
      await signIn.signOutEverywhere(signedIn.account.id);
      clearSessionCookie(reply);
      return reply.redirect('/signin?notice=signed-out-everywhere', 303);
    });
  });
}
