import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../accounts/sign-in-service.js';
import type { WebhookConfig } from '../config.js';
import { decideAccess } from '../domain/access.js';
import { countOf } from '../domain/plural.js';
import { retryAfterSeconds } from '../domain/rate-window.js';
import { isUuid } from '../domain/catalogue-ids.js';
import { MAX_WEBHOOK_CHANNELS, type Webhook, type WebhookFilter } from '../domain/webhook.js';
import type { RateLimiter } from '../ratelimit/types.js';
import { WebhookLimitError } from '../storage/errors.js';
import type { Store } from '../storage/store.js';
import {
  createAuditedWebhook,
  deleteAuditedWebhook,
  enableAuditedWebhook,
  WebhookSettingsRefused,
} from '../webhooks/webhook-admin.js';
import { sendTestRequest, type DeliveryLog } from '../webhooks/webhook-delivery.js';
import { webhookRefusalSentence, type Resolver } from '../webhooks/webhook-target.js';
import { formField, sendPage } from './page-helpers.js';
import type { ShownOnce } from './shown-once.js';
import { channelChoices, chosenChannelIds } from './channel-choice.js';
import { messagePage } from './views/sign-in-pages.js';
import {
  deleteWebhookConfirmPage,
  webhookFormPage,
  webhookPage,
  webhookSecretPage,
  type WebhookFormView,
} from './views/webhook-pages.js';

/** 100 channel ids and a URL of 2,048 characters, percent-encoded, fit well within this. */
const WEBHOOK_FORM_BYTES = 32 * 1024;

/**
 * Test requests an account's webhook pages may send in one window of the test limiter (a
 * quarter of an hour by the clock: :00, :15, :30, :45): plenty to try a receiver, but not a way
 * to make the server POST to a URL at will.
 */
export const WEBHOOK_TESTS_PER_WINDOW = 20;

export interface WebhookPageDeps {
  store: Store;
  now: () => number;
  /** The signed-in session of a request, or null. */
  signedIn(request: FastifyRequest): Promise<SignedIn | null>;
  /** To the sign-in page, for a request without a live session (see web-routes.ts). */
  signInFirst(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Holds a new secret between the POST that made it and the page that shows it once. */
  shownOnce: ShownOnce;
  /** Where webhooks may send (the WEBHOOK_* settings). */
  settings: WebhookConfig;
  /** Counts each account's test requests (WEBHOOK_TESTS_PER_WINDOW a window). */
  testLimiter: RateLimiter;
  /** Logs the test requests sent from the page (the request log's logger). */
  log: DeliveryLog;
  /** Resolves receivers' names; node:dns by default (tests give their own). */
  resolve?: Resolver;
}

const NOTICES: Record<string, string> = {
  'secret-shown':
    'The secret of a webhook is shown only once, right after it is made, and not again. If you ' +
    'did not copy it, delete the webhook and create another.',
  tested: 'The test request was sent: its answer is the first line of the log below.',
  'not-sent':
    'No test request was sent: this account cannot call the API now, and its webhooks wait ' +
    'until it can.',
  enabled: 'The webhook is on again: it is tried now, with the changes it missed.',
};

/** The form's fields as typed (a GET's query or a POST's body). */
function typedForm(fields: unknown) {
  return {
    url: formField(fields, 'url'),
    filterKind:
      formField(fields, 'filter') === 'country' ? ('country' as const) : ('channels' as const),
    country: formField(fields, 'country'),
    channelIds: chosenChannelIds(fields, MAX_WEBHOOK_CHANNELS),
    q: formField(fields, 'q'),
  };
}
type TypedForm = ReturnType<typeof typedForm>;

function filterOf(form: TypedForm): WebhookFilter {
  return form.filterKind === 'country'
    ? { kind: 'country', country: form.country }
    : { kind: 'channels', channelIds: form.channelIds };
}

/**
 * The webhook pages of the account: a form to make one (a URL; channels by search or a whole
 * country), its secret shown once, its state and delivery log with a test request, delete.
 * Registered inside the pages' context, so the same-origin check of every POST and the page
 * error handler apply.
 */
export async function registerWebhookPages(
  web: FastifyInstance,
  deps: WebhookPageDeps,
): Promise<void> {
  const { store } = deps;
  const admin = {
    store,
    policy: deps.settings,
    ...(deps.resolve === undefined ? {} : { resolve: deps.resolve }),
  };

  async function formView(form: TypedForm, error?: string): Promise<WebhookFormView> {
    const choices = await channelChoices(store, form.channelIds, form.q);
    return {
      url: form.url,
      filterKind: form.filterKind,
      country: form.country,
      ...choices,
      q: form.q,
      ...(error === undefined ? {} : { error }),
    };
  }

  const webhookNotFound = (reply: FastifyReply) =>
    sendPage(
      reply,
      404,
      messagePage('Webhook not found', 'There is no such webhook in your account.', true, {
        href: '/account#webhooks',
        label: 'Back to your webhooks',
      }),
    );

  await web.register(async (hooks) => {
    hooks.removeContentTypeParser('application/x-www-form-urlencoded');
    await hooks.register(fastifyFormbody, { bodyLimit: WEBHOOK_FORM_BYTES });

    hooks.get('/account/webhooks/new', async (request, reply) => {
      if ((await deps.signedIn(request)) === null) return deps.signInFirst(request, reply);
      return sendPage(reply, 200, webhookFormPage(await formView(typedForm(request.query))));
    });

    // The form's channel search posts it back here (its URL stays out of the address): the
    // form again, with what is typed and chosen, and the search's finds. Nothing is saved.
    hooks.post('/account/webhooks/new', async (request, reply) => {
      if ((await deps.signedIn(request)) === null) return deps.signInFirst(request, reply);
      return sendPage(reply, 200, webhookFormPage(await formView(typedForm(request.body))));
    });

    // A refused form leaves its POST address in the address bar: opening it shows the form.
    hooks.get('/account/webhooks', async (_request, reply) =>
      reply.redirect('/account/webhooks/new', 303),
    );

    hooks.post('/account/webhooks', async (request, reply) => {
      const signedIn = await deps.signedIn(request);
      if (signedIn === null) return deps.signInFirst(request, reply);
      const form = typedForm(request.body);
      try {
        const issued = await createAuditedWebhook(
          admin,
          signedIn.account.id,
          { url: form.url, filter: filterOf(form) },
          'account',
          deps.now(),
        );
        // Post/redirect/get: the secret waits for the next page, which shows it once.
        deps.shownOnce.hold(
          { sessionHash: signedIn.sessionHash, accountId: signedIn.account.id },
          `webhook:${issued.webhook.id}`,
          issued.secret,
        );
        return reply.redirect(`/account/webhooks/${issued.webhook.id}/secret`, 303);
      } catch (error) {
        if (error instanceof WebhookLimitError) {
          return sendPage(
            reply,
            409,
            webhookFormPage(await formView(form, webhookRefusalSentence(error))),
          );
        }
        if (!(error instanceof WebhookSettingsRefused)) throw error;
        // Everything that is wrong, each by its field, not only the first found.
        const { problems } = error;
        const fieldErrors: NonNullable<WebhookFormView['fieldErrors']> = {};
        if (problems.url !== null) fieldErrors.url = webhookRefusalSentence(problems.url);
        if (problems.filter !== null) fieldErrors.filter = webhookRefusalSentence(problems.filter);
        return sendPage(reply, 400, webhookFormPage({ ...(await formView(form)), fieldErrors }));
      }
    });

    /** A route of one of the holder's webhooks: signed in, and the webhook theirs, else 404. */
    type WebhookRequest = FastifyRequest<{ Params: { webhookId: string } }>;
    const ofOwnWebhook =
      (
        answer: (
          request: WebhookRequest,
          reply: FastifyReply,
          webhook: Webhook,
          signedIn: SignedIn,
        ) => Promise<FastifyReply>,
      ) =>
      async (request: WebhookRequest, reply: FastifyReply) => {
        const signedIn = await deps.signedIn(request);
        if (signedIn === null) return deps.signInFirst(request, reply);
        const { webhookId } = request.params;
        const webhook = isUuid(webhookId) ? await store.webhooks.findWebhook(webhookId) : null;
        // Someone else's webhook is answered exactly like one that does not exist.
        if (webhook === null || webhook.accountId !== signedIn.account.id) {
          return webhookNotFound(reply);
        }
        return answer(request, reply, webhook, signedIn);
      };

    hooks.get(
      '/account/webhooks/:webhookId/secret',
      ofOwnWebhook(async (_request, reply, webhook, signedIn) => {
        const secret = deps.shownOnce.take(signedIn.sessionHash, `webhook:${webhook.id}`);
        // Shown already (a reload, back, another tab), or held by another instance.
        if (secret === null) {
          return reply.redirect(`/account/webhooks/${webhook.id}?notice=secret-shown`, 303);
        }
        return sendPage(reply, 200, webhookSecretPage(webhook, secret));
      }),
    );

    hooks.get(
      '/account/webhooks/:webhookId',
      ofOwnWebhook(async (request, reply, webhook, signedIn) => {
        const attempts = await store.webhooks.listAttempts(webhook.id);
        const canCall = decideAccess(signedIn.account, deps.now()).eligible;
        const notice = NOTICES[formField(request.query, 'notice')];
        return sendPage(reply, 200, webhookPage(webhook, attempts, canCall, notice));
      }),
    );

    // The test and enable buttons post from the webhook's page: a GET of them shows it.
    for (const action of ['test', 'enable']) {
      hooks.get(
        `/account/webhooks/:webhookId/${action}`,
        ofOwnWebhook(async (_request, reply, webhook) =>
          reply.redirect(`/account/webhooks/${webhook.id}`, 303),
        ),
      );
    }

    hooks.post(
      '/account/webhooks/:webhookId/test',
      ofOwnWebhook(async (_request, reply, webhook, signedIn) => {
        // As deliveries are paused for an account without access (disabled by the operator,
        // its access over), so are its test requests: no signed POST goes out for it.
        if (!decideAccess(signedIn.account, deps.now()).eligible) {
          return reply.redirect(`/account/webhooks/${webhook.id}?notice=not-sent`, 303);
        }
        const decision = await deps.testLimiter.hit(
          `account:${signedIn.account.id}`,
          WEBHOOK_TESTS_PER_WINDOW,
        );
        if (!decision.allowed) {
          const seconds = retryAfterSeconds(decision);
          const minutes = Math.ceil(seconds / 60);
          reply.header('Retry-After', String(seconds));
          return sendPage(
            reply,
            429,
            messagePage(
              'Too many test requests',
              `Your account has sent ${WEBHOOK_TESTS_PER_WINDOW} test requests in this quarter ` +
                `of an hour. You can send another in ${countOf(minutes, 'minute')}.`,
              true,
              { href: `/account/webhooks/${webhook.id}`, label: 'Back to the webhook' },
            ),
          );
        }
        await sendTestRequest(
          {
            store,
            now: deps.now,
            log: deps.log,
            policy: deps.settings,
            timeoutMs: deps.settings.timeoutMs,
            ...(deps.resolve === undefined ? {} : { resolve: deps.resolve }),
          },
          webhook,
        );
        return reply.redirect(`/account/webhooks/${webhook.id}?notice=tested#attempts`, 303);
      }),
    );

    hooks.post(
      '/account/webhooks/:webhookId/enable',
      ofOwnWebhook(async (_request, reply, webhook) => {
        // Enabled already (a second click, another tab): the page says how it stands.
        const enabled = await enableAuditedWebhook(store, webhook, 'account', deps.now());
        const notice = enabled ? '?notice=enabled' : '';
        return reply.redirect(`/account/webhooks/${webhook.id}${notice}`, 303);
      }),
    );

    hooks.get(
      '/account/webhooks/:webhookId/delete',
      ofOwnWebhook(async (_request, reply, webhook) =>
        sendPage(reply, 200, deleteWebhookConfirmPage(webhook)),
      ),
    );

    hooks.post(
      '/account/webhooks/:webhookId/delete',
      ofOwnWebhook(async (_request, reply, webhook) => {
        await deleteAuditedWebhook(store, webhook, 'account', deps.now());
        return reply.redirect('/account?notice=webhook-deleted#webhooks', 303);
      }),
    );
  });
}
