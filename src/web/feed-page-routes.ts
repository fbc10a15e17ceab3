import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createAuditedFeed,
  deleteAuditedFeed,
  regenerateAuditedFeedToken,
  updateAuditedFeed,
  type IssuedFeed,
} from '../accounts/feed-service.js';
import type { SignedIn } from '../accounts/sign-in-service.js';
import { isUuid } from '../domain/catalogue-ids.js';
import { asSentence } from '../domain/display-text.js';
import {
  DAYS_AHEAD,
  DAYS_BACK,
  feedUrls,
  FeedSettingsError,
  feedSettingsProblems,
  MAX_LINEUP_CHANNELS,
  type Feed,
  type FeedSettings,
} from '../domain/feed.js';
import { FeedLimitError } from '../storage/errors.js';
import type { Store } from '../storage/store.js';
import type { SiteAddress } from '../http/site-address.js';
import { formField, sendPage } from './page-helpers.js';
import type { ShownOnce } from './shown-once.js';
import {
  deleteFeedConfirmPage,
  feedFormPage,
  feedUrlPage,
  newFeedUrlConfirmPage,
  type FeedFieldErrors,
  type FeedFormView,
} from './views/feed-pages.js';
import { channelChoices, chosenChannelIds } from './channel-choice.js';
import { messagePage } from './views/sign-in-pages.js';

/** A lineup of 1,000 channel ids is about 45 kB of form; the pages' other forms stay at 8 kB. */
const FEED_FORM_BYTES = 64 * 1024;

export interface FeedPageDeps {
  store: Store;
  site: SiteAddress;
  now: () => number;
  /** The signed-in session of a request, or null. */
  signedIn(request: FastifyRequest): Promise<SignedIn | null>;
  /** To the sign-in page, for a request without a live session (see web-routes.ts). */
  signInFirst(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Holds a new address between the POST that made it and the page that shows it once. */
  shownOnce: ShownOnce;
}

/** The form's fields as typed (a GET's query or a POST's body). */
function typedForm(fields: unknown) {
  return {
    name: formField(fields, 'name'),
    lineupKind:
      formField(fields, 'lineup') === 'country' ? ('country' as const) : ('channels' as const),
    country: formField(fields, 'country'),
    daysAhead: formField(fields, 'days_ahead'),
    daysBack: formField(fields, 'days_back'),
    channelIds: chosenChannelIds(fields, MAX_LINEUP_CHANNELS),
    q: formField(fields, 'q'),
  };
}
type TypedForm = ReturnType<typeof typedForm>;

function formOfFeed(feed: Feed): TypedForm {
  return {
    name: feed.name,
    lineupKind: feed.lineup.kind,
    country: feed.lineup.kind === 'country' ? feed.lineup.country : '',
    daysAhead: String(feed.daysAhead),
    daysBack: String(feed.daysBack),
    channelIds: feed.lineup.kind === 'channels' ? [...feed.lineup.channelIds] : [],
    q: '',
  };
}

function settingsOf(form: TypedForm): FeedSettings {
  return {
    name: form.name,
    lineup:
      form.lineupKind === 'country'
        ? { kind: 'country', country: form.country }
        : { kind: 'channels', channelIds: form.channelIds },
    daysAhead: form.daysAhead === '' ? Number.NaN : Number(form.daysAhead),
    daysBack: form.daysBack === '' ? Number.NaN : Number(form.daysBack),
  };
}

/** Every field of the form the settings' rules refuse, each with its sentence. */
function fieldErrors(form: TypedForm): FeedFieldErrors {
  const problems = feedSettingsProblems(settingsOf(form));
  return Object.fromEntries(
    Object.entries(problems).map(([field, message]) => [field, asSentence(message)]),
  ) as FeedFieldErrors;
}

/**
 * The feed pages of the account: a form to make or edit a feed (channels by search or a whole
 * country), its address shown once, a new address, delete. Registered inside the pages'
 * context, so the same-origin check of every POST and the page error handler apply.
 */
export async function registerFeedPages(web: FastifyInstance, deps: FeedPageDeps): Promise<void> {
  const { store } = deps;

  async function formView(
    feedId: string | null,
    form: TypedForm,
    error?: string,
    refused?: FeedFieldErrors,
  ): Promise<FeedFormView> {
    const choices = await channelChoices(store, form.channelIds, form.q);
    return {
      feedId,
      name: form.name,
      lineupKind: form.lineupKind,
      country: form.country,
      daysAhead: form.daysAhead,
      daysBack: form.daysBack,
      ...choices,
      q: form.q,
      ...(error === undefined ? {} : { error }),
      ...(refused === undefined ? {} : { fieldErrors: refused }),
    };
  }

  /** The holder's feed of that id; someone else's is answered like one that does not exist. */
  async function ownFeed(accountId: string, id: string): Promise<Feed | null> {
    const feed = isUuid(id) ? await store.feeds.findFeed(id) : null;
    return feed !== null && feed.accountId === accountId ? feed : null;
  }

  const feedNotFound = (reply: FastifyReply) =>
    sendPage(
      reply,
      404,
      messagePage('Feed not found', 'There is no such feed in your account.', true, {
        href: '/account#feeds',
        label: 'Back to your feeds',
      }),
    );

  /** Post/redirect/get: the new address waits for the next page, which shows it once. */
  const showUrlOnce = (reply: FastifyReply, signedIn: SignedIn, issued: IssuedFeed) => {
    deps.shownOnce.hold(
      { sessionHash: signedIn.sessionHash, accountId: signedIn.account.id },
      `feed:${issued.feed.id}`,
      issued.token,
    );
    return reply.redirect(`/account/feeds/${issued.feed.id}/address`, 303);
  };

  /** Saves the form; a refused setting shows the form again with why. */
  async function save(
    reply: FastifyReply,
    feedId: string | null,
    form: TypedForm,
    work: (settings: FeedSettings) => Promise<FastifyReply>,
  ): Promise<FastifyReply> {
    const refused = fieldErrors(form);
    if (Object.keys(refused).length > 0) {
      return sendPage(reply, 400, feedFormPage(await formView(feedId, form, undefined, refused)));
    }
    try {
      return await work(settingsOf(form));
    } catch (error) {
      if (error instanceof FeedSettingsError || error instanceof FeedLimitError) {
        const status = error instanceof FeedLimitError ? 409 : 400;
        return sendPage(
          reply,
          status,
          feedFormPage(await formView(feedId, form, asSentence(error.message))),
        );
      }
      throw error;
    }
  }

  await web.register(async (feeds) => {
    feeds.removeContentTypeParser('application/x-www-form-urlencoded');
    await feeds.register(fastifyFormbody, { bodyLimit: FEED_FORM_BYTES });

    feeds.get('/account/feeds/new', async (request, reply) => {
      if ((await deps.signedIn(request)) === null) return deps.signInFirst(request, reply);
      const form = typedForm(request.query);
      if (form.daysAhead === '') form.daysAhead = String(DAYS_AHEAD.default);
      if (form.daysBack === '') form.daysBack = String(DAYS_BACK.default);
      return sendPage(reply, 200, feedFormPage(await formView(null, form)));
    });

    // A refused form leaves its POST address in the address bar: opening it shows the form.
    feeds.get('/account/feeds', async (_request, reply) =>
      reply.redirect('/account/feeds/new', 303),
    );

    feeds.post('/account/feeds', async (request, reply) => {
      const signedIn = await deps.signedIn(request);
      if (signedIn === null) return deps.signInFirst(request, reply);
      const form = typedForm(request.body);
      return save(reply, null, form, async (settings) =>
        showUrlOnce(
          reply,
          signedIn,
          await createAuditedFeed(store, signedIn.account.id, settings, 'account', deps.now()),
        ),
      );
    });

    /** A route of one of the holder's feeds: signed in, and the feed theirs, else 404. */
    type FeedRequest = FastifyRequest<{ Params: { feedId: string } }>;
    const ofOwnFeed =
      (
        answer: (
          request: FeedRequest,
          reply: FastifyReply,
          feed: Feed,
          signedIn: SignedIn,
        ) => Promise<FastifyReply>,
      ) =>
      async (request: FeedRequest, reply: FastifyReply) => {
        const signedIn = await deps.signedIn(request);
        if (signedIn === null) return deps.signInFirst(request, reply);
        const feed = await ownFeed(signedIn.account.id, request.params.feedId);
        return feed === null ? feedNotFound(reply) : answer(request, reply, feed, signedIn);
      };

    feeds.get(
      '/account/feeds/:feedId/edit',
      ofOwnFeed(async (request, reply, feed) => {
        // Opened from the account page: the feed as it is; after a search: the form as typed.
        const typed = formField(request.query, 'name') !== '';
        const form = typed ? typedForm(request.query) : formOfFeed(feed);
        return sendPage(reply, 200, feedFormPage(await formView(feed.id, form)));
      }),
    );

    feeds.get(
      '/account/feeds/:feedId',
      ofOwnFeed(async (_request, reply, feed) =>
        reply.redirect(`/account/feeds/${feed.id}/edit`, 303),
      ),
    );

    feeds.post(
      '/account/feeds/:feedId',
      ofOwnFeed(async (request, reply, feed) =>
        save(reply, feed.id, typedForm(request.body), async (settings) => {
          const updated = await updateAuditedFeed(store, feed, settings, 'account', deps.now());
          if (updated === null) return feedNotFound(reply);
          return reply.redirect('/account?notice=feed-saved#feeds', 303);
        }),
      ),
    );

    feeds.get(
      '/account/feeds/:feedId/address',
      ofOwnFeed(async (_request, reply, feed, signedIn) => {
        const token = deps.shownOnce.take(signedIn.sessionHash, `feed:${feed.id}`);
        // Shown already (a reload, back, another tab), or held by another instance: the account.
        if (token === null) return reply.redirect('/account?notice=feed-address-shown#feeds', 303);
        return sendPage(reply, 200, feedUrlPage(feed, feedUrls(deps.site.url, token)));
      }),
    );

    feeds.get(
      '/account/feeds/:feedId/token',
      ofOwnFeed(async (_request, reply, feed) => sendPage(reply, 200, newFeedUrlConfirmPage(feed))),
    );

    feeds.post(
      '/account/feeds/:feedId/token',
      ofOwnFeed(async (_request, reply, feed, signedIn) => {
        const renewed = await regenerateAuditedFeedToken(store, feed, 'account', deps.now());
        return renewed === null ? feedNotFound(reply) : showUrlOnce(reply, signedIn, renewed);
      }),
    );

    feeds.get(
      '/account/feeds/:feedId/delete',
      ofOwnFeed(async (_request, reply, feed) => sendPage(reply, 200, deleteFeedConfirmPage(feed))),
    );

    feeds.post(
      '/account/feeds/:feedId/delete',
      ofOwnFeed(async (_request, reply, feed) => {
        await deleteAuditedFeed(store, feed, 'account', deps.now());
        return reply.redirect('/account?notice=feed-deleted#feeds', 303);
      }),
    );
  });
}
