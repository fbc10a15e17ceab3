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
import { PROJECT_ROOT, type WebhookConfig } from '../config.js';
import type { ApiKey } from '../domain/account.js';
import { isUuid } from '../domain/catalogue-ids.js';
import { parseEmailAddress } from '../domain/email-address.js';
import { errors } from '../domain/errors.js';
import { MAX_FEEDS_PER_ACCOUNT } from '../domain/feed.js';
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../domain/webhook.js';
import { retryAfterSeconds } from '../domain/rate-window.js';
import { DAY_MS } from '../domain/schedule-window.js';
import { toAppError } from '../http/error-handler.js';
import type { SiteAddress } from '../http/site-address.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { Store } from '../storage/store.js';
import { formField, sendPage } from './page-helpers.js';
import { registerFeedPages } from './feed-page-routes.js';
import { registerWebhookPages } from './webhook-page-routes.js';
import { pageHelmetOptions } from './page-security.js';
import { isSameOriginRequest } from './same-origin.js';
import { createShownOnce } from './shown-once.js';
import { isHttpsSite, sessionCookieName } from './session-cookie.js';
import {
  accountPage,
  endAllSessionsConfirmPage,
  keyCreatedPage,
  revokeKeyConfirmPage,
} from './views/account-pages.js';
import {
  confirmPage,
  homePage,
  linkSentPage,
  linkUnusablePage,
  messagePage,
  signInPage,
  signOutPage,
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
  /** Counts the test requests of each account's webhooks (15-minute windows). */
  webhookTestLimiter: RateLimiter;
  site: SiteAddress;
  now: () => number;
  /** Where webhooks may send (the WEBHOOK_* settings). */
  webhooks: WebhookConfig;
}

const NOTICES: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'session-ended':
    'Your session has ended (sessions last 30 days, and "sign out everywhere" ends them all). ' +
    'Sign in again to go on; a form you were sending was not saved.',
  'signed-out-everywhere': 'Every session of your account has ended, this one included.',
  'key-revoked': 'The key is revoked. Requests made with it are refused from now on.',
  'key-shown':
    'A new key is shown only once, right after it is made, and not again. If you did not copy ' +
    'it, revoke it and create another.',
  'feed-saved': 'The feed is saved. Media servers get the new lineup at their next fetch.',
  'feed-deleted': 'The feed is deleted. Its address is refused from now on.',
  'feed-address-shown':
    'The address of a feed is shown only once, right after it is made, and not again. If you ' +
    'did not copy it, give the feed a new URL.',
  'webhook-deleted': 'The webhook is deleted. Nothing more is sent to it.',
};

/** The sign-in address just typed, kept by the browser for the "check your inbox" page. */
const LINK_SENT_COOKIE = 'onair_link_sent';
const LINK_SENT_PATH = '/signin/sent';

/**
 * The customer-facing pages: home, passwordless sign-in, and the account page with its keys.
 * Server-rendered and escaped, same-origin scripts only, every POST checked against forgery.
 */
export async function registerWebRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { store, signIn, site } = deps;
  const secureCookies = () => isHttpsSite(site);
  const cookieName = () => sessionCookieName(site);
  // New keys and feed addresses, between the POST that made them and the page that shows them.
  const shownOnce = createShownOnce(deps.now);

  await app.register(async (web) => {
    await web.register(fastifyCookie);
    // Forms only: a body of another type (JSON, text: up to Fastify's 1 MiB) was read and parsed
    // before the same-site check refused it.
    web.removeAllContentTypeParsers();
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
    web.setErrorHandler(async (error: unknown, request, reply) => {
      const appError = toAppError(error);
      if (appError.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'page failed');
      const title = appError.status >= 500 ? 'Something went wrong' : 'Request refused';
      // Signed in, the page leads back to the account; the error page never fails over it.
      const signedIn = (await currentSession(request).catch(() => null)) !== null;
      return sendPage(reply, appError.status, messagePage(title, appError.message, signedIn));
    });

    async function currentSession(request: FastifyRequest): Promise<SignedIn | null> {
      const sessionId = request.cookies[cookieName()];
      return sessionId === undefined ? null : signIn.findSignedIn(sessionId);
    }

    /**
     * To the sign-in page. A request that carried a session cookie whose session has ended
     * (its 30 days over, or "sign out everywhere" elsewhere) is told so there, rather than
     * sent to the form without a word, and the dead cookie goes.
     */
    function signInFirst(request: FastifyRequest, reply: FastifyReply): FastifyReply {
      if (request.cookies[cookieName()] === undefined) return reply.redirect('/signin', 303);
      clearSessionCookie(reply);
      return reply.redirect('/signin?notice=session-ended', 303);
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
      messages: {
        notice?: string;
        error?: string;
        keyNameError?: string;
        revokedKeyId?: string;
      } = {},
    ): Promise<FastifyReply> {
      const nowMs = deps.now();
      const allKeys = await store.accounts.listApiKeys(signedIn.account.id);
      const keys = allKeys.filter((key) => key.revokedAt === null);
      // The key just revoked, named: the account's own, and revoked (a made-up id names none).
      const revoked = allKeys.find((key) => key.id === messages.revokedKeyId && key.revokedAt);
      const notice =
        revoked === undefined
          ? messages.notice
          : `The key “${revoked.name}” (ending ${revoked.lastFour}) is revoked. Requests made ` +
            'with it are refused from now on.';
      const usage = await store.accounts.usageSince(signedIn.account.id, nowMs - DAY_MS);
      const feeds = await store.feeds.listFeeds(signedIn.account.id);
      const webhooks = [];
      for (const webhook of await store.webhooks.listWebhooks(signedIn.account.id)) {
        const [lastAttempt = null] = await store.webhooks.listAttempts(webhook.id);
        webhooks.push({ webhook, lastAttempt });
      }
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
          webhooks,
          webhookCap: MAX_WEBHOOKS_PER_ACCOUNT,
          usage,
          apiBase: apiBase(),
          ...(notice === undefined ? {} : { notice }),
          ...(messages.error === undefined ? {} : { error: messages.error }),
          ...(messages.keyNameError === undefined ? {} : { keyNameError: messages.keyNameError }),
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
        [`ip:${request.ip}`, SIGN_IN_LINKS_PER_IP],
        [`email:${email.toLowerCase()}`, SIGN_IN_LINKS_PER_ADDRESS],
      ] as const) {
        const decision = await deps.signInLimiter.hit(key, limit);
        if (!decision.allowed) {
          const seconds = retryAfterSeconds(decision);
          reply.header('Retry-After', String(seconds));
          return sendPage(reply, 429, tooManyLinksPage(Math.ceil(seconds / 60)));
        }
      }
      await signIn.requestLink(email);
      // A reload of the next page resends nothing; the address rides in a cookie, not the URL
      // (URLs are logged).
      reply.setCookie(LINK_SENT_COOKIE, email, {
        path: LINK_SENT_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies(),
        maxAge: 15 * 60,
      });
      return reply.redirect(LINK_SENT_PATH, 303);
    });

    web.get(LINK_SENT_PATH, async (request, reply) => {
      const email = parseEmailAddress(request.cookies[LINK_SENT_COOKIE] ?? '');
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
      if (previous !== null) {
        await signIn.signOut(previous.sessionHash);
        shownOnce.forgetSession(previous.sessionHash);
      }
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
      if (signedIn !== null) {
        await signIn.signOut(signedIn.sessionHash);
        shownOnce.forgetSession(signedIn.sessionHash);
      }
      clearSessionCookie(reply);
      return reply.redirect('/signin?notice=signed-out', 303);
    });

    web.get('/signout', async (request, reply) =>
      (await currentSession(request)) === null
        ? reply.redirect('/signin', 303)
        : sendPage(reply, 200, signOutPage()),
    );

    web.get('/account', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn === null) return signInFirst(request, reply);
      const notice = formField(request.query, 'notice');
      return renderAccount(reply, signedIn, 200, {
        notice: NOTICES[notice],
        ...(notice === 'key-revoked' ? { revokedKeyId: formField(request.query, 'key') } : {}),
      });
    });

    // A refused key name leaves /account/keys in the address bar: opening it shows the form.
    web.get('/account/keys', async (_request, reply) => reply.redirect('/account#keys', 303));

    web.post('/account/keys', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn === null) return signInFirst(request, reply);
      const name = cleanKeyName(formField(request.body, 'name'));
      if (name === '') {
        return renderAccount(reply, signedIn, 400, {
          keyNameError: 'Give the key a name, e.g. production.',
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
      const issued = await issueAuditedApiKey(
        store.accounts,
        signedIn.account.id,
        name,
        'account',
        deps.now(),
      );
      // Post/redirect/get: the secret waits for the next page, which shows it once.
      shownOnce.hold(
        { sessionHash: signedIn.sessionHash, accountId: signedIn.account.id },
        `key:${issued.record.id}`,
        issued.key,
      );
      return reply.redirect(`/account/keys/${issued.record.id}/created`, 303);
    });

    /** A route of one of the account's keys: signed in, and the key theirs, else 404. */
    type KeyRequest = FastifyRequest<{ Params: { keyId: string } }>;
    const ofOwnKey =
      (
        answer: (
          request: KeyRequest,
          reply: FastifyReply,
          signedIn: SignedIn,
          key: ApiKey,
        ) => Promise<FastifyReply>,
      ) =>
      async (request: KeyRequest, reply: FastifyReply) => {
        const signedIn = await currentSession(request);
        if (signedIn === null) return signInFirst(request, reply);
        // Key ids are UUIDs: anything else is no key, and never reaches the database.
        const key = isUuid(request.params.keyId)
          ? await store.accounts.findApiKey(request.params.keyId)
          : null;
        // Someone else's key is answered exactly like a key that does not exist.
        if (key === null || key.accountId !== signedIn.account.id) {
          return sendPage(
            reply,
            404,
            messagePage('Key not found', 'There is no such key in your account.', true, {
              href: '/account#keys',
              label: 'Back to your keys',
            }),
          );
        }
        return answer(request, reply, signedIn, key);
      };

    web.get(
      '/account/keys/:keyId/created',
      ofOwnKey(async (_request, reply, signedIn, key) => {
        const secret = shownOnce.take(signedIn.sessionHash, `key:${key.id}`);
        // Shown already (a reload, back, another tab), or held by another instance: the account.
        if (secret === null || key.revokedAt !== null) {
          return reply.redirect('/account?notice=key-shown', 303);
        }
        return sendPage(reply, 200, keyCreatedPage(key, secret, apiBase()));
      }),
    );

    web.get(
      '/account/keys/:keyId/revoke',
      ofOwnKey(async (_request, reply, _signedIn, key) =>
        key.revokedAt === null
          ? sendPage(reply, 200, revokeKeyConfirmPage(key))
          : reply.redirect(`/account?notice=key-revoked&key=${key.id}`, 303),
      ),
    );

    web.post(
      '/account/keys/:keyId/revoke',
      ofOwnKey(async (_request, reply, _signedIn, key) => {
        await revokeAuditedApiKey(store.accounts, key, 'account', deps.now());
        return reply.redirect(`/account?notice=key-revoked&key=${key.id}`, 303);
      }),
    );

    await registerFeedPages(web, {
      store,
      site,
      now: deps.now,
      signedIn: currentSession,
      signInFirst,
      shownOnce,
    });

    await registerWebhookPages(web, {
      store,
      now: deps.now,
      signedIn: currentSession,
      signInFirst,
      shownOnce,
      settings: deps.webhooks,
      testLimiter: deps.webhookTestLimiter,
      log: web.log,
    });

    web.get('/account/sessions/end-all', async (request, reply) => {
      if ((await currentSession(request)) === null) return signInFirst(request, reply);
      return sendPage(reply, 200, endAllSessionsConfirmPage());
    });

    web.post('/account/sessions/end-all', async (request, reply) => {
      const signedIn = await currentSession(request);
      if (signedIn === null) return signInFirst(request, reply);
      await signIn.signOutEverywhere(signedIn.account.id);
      shownOnce.forgetAccount(signedIn.account.id);
      clearSessionCookie(reply);
      return reply.redirect('/signin?notice=signed-out-everywhere', 303);
    });
  });
}
