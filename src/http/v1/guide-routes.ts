import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  pageOf,
  parseGuideQuery,
  parseNowQuery,
  resolveInstant,
  type ChannelSelection,
} from '../../domain/guide.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import type { CachedAnswers } from '../answers/cached-answers.js';
import type { EntryCache } from '../answers/entry-cache.js';
import {
  createGuideAnswers,
  guideKey,
  listedChannels,
  nowKey,
  type SelectedChannels,
} from '../answers/guide-answers.js';
import {
  ErrorBody,
  GuideQuery,
  GuideResponse,
  keyedErrorResponses,
  NowQuery,
  NowResponse,
} from '../schemas.js';
import { refuseOtherMethods } from '../method-guard.js';

/** The channels a selection names: a country's page, or the ids given, found and missing. */
async function selectChannels(
  catalogue: CatalogueReader,
  selection: ChannelSelection,
): Promise<SelectedChannels> {
  if (selection.kind === 'country') {
    const { page, next } = pageOf(
      await catalogue.listChannels(selection.country),
      selection.limit,
      selection.offset,
    );
    return { channels: page, missing: [], next };
  }
  return listedChannels(selection.ids, await catalogue.findChannels(selection.ids));
}

/**
 * GET /api/v1/guide and GET /api/v1/now: many channels' programmes of a window, or what is on
 * now and next, in one request (the rules: domain/guide.ts). Both are moving answers: read once
 * per programme boundary, written out per second (answers/guide-answers.ts, moving-cache.ts).
 */
export function registerGuideRoutes(
  app: FastifyInstance,
  catalogue: CatalogueReader,
  answers: CachedAnswers,
  entries: EntryCache,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();
  const build = createGuideAnswers(catalogue, entries);

  v1.get(
    '/guide',
    {
      schema: {
        summary: 'The programmes of many channels in a window: a guide grid',
        querystring: GuideQuery,
        response: { 200: GuideResponse, 400: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const query = parseGuideQuery(request.query);
      const answer = answers.moving(
        guideKey(query),
        (nowMs) => resolveInstant(query.from, nowMs),
        async (fromMs) =>
          build.guide(await selectChannels(catalogue, query.selection), query.hours, fromMs),
      );
      return answers.send(request, reply as unknown as FastifyReply, answer);
    },
  );
  refuseOtherMethods(app, '/guide');

  v1.get(
    '/now',
    {
      schema: {
        summary: 'What is on now and next on many channels',
        querystring: NowQuery,
        response: { 200: NowResponse, 400: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const query = parseNowQuery(request.query);
      const answer = answers.moving(
        nowKey(query),
        (nowMs) => resolveInstant(query.at, nowMs),
        async (atMs) => build.now(await selectChannels(catalogue, query.selection), atMs),
      );
      return answers.send(request, reply as unknown as FastifyReply, answer);
    },
  );
  refuseOtherMethods(app, '/now');
}
