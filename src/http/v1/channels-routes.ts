import type { FastifyInstance, FastifyReply } from 'fastify';
import fastJson from 'fast-json-stringify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isUuid } from '../../domain/catalogue-ids.js';
import { parseCountryCode } from '../../domain/country.js';
import { errors } from '../../domain/errors.js';
import { isProgrammeId } from '../../domain/programme-id.js';
import { parseScheduleQuery } from '../../domain/schedule-window.js';
import { MAX_SEARCH_RESULTS, searchNeedle } from '../../domain/search-folding.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import {
  ChannelParams,
  ErrorBody,
  keyedErrorResponses,
  ProgrammeParams,
  ProgrammeResponse,
  ProgrammesQuery,
  ProgrammesResponse,
  SearchQuery,
  SearchResponse,
} from '../schemas.js';
import type { CachedAnswers } from '../answers/cached-answers.js';
import { refuseOtherMethods } from '../method-guard.js';

/**
 * GET /api/v1/channels/search, GET /api/v1/channels/:channelId/programmes and
 * GET /api/v1/channels/:channelId/programmes/:programmeId.
 */
export function registerChannelsRoutes(
  app: FastifyInstance,
  catalogue: CatalogueReader,
  answers: CachedAnswers,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();
  const searchJson = fastJson(SearchResponse as object);
  const programmeJson = fastJson(ProgrammeResponse as object);

  v1.get(
    '/channels/search',
    {
      schema: {
        summary: 'Search channels by name',
        querystring: SearchQuery,
        response: { 200: SearchResponse, 400: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const { q, country } = request.query;
      const countryFilter =
        country === undefined || country.trim() === '' ? null : parseCountryCode(country);
      const needle = searchNeedle(q);
      // Blank: no results, sent as every other answer (ETag, Cache-Control, compression).
      const answer =
        needle === null
          ? answers.body('search-blank', async () => searchJson({ results: [] }))
          : searchAnswer(needle, countryFilter);
      return answers.send(request, reply as unknown as FastifyReply, answer);
    },
  );
  refuseOtherMethods(app, '/channels/search');

  /** A search's answer, kept only when asked again: most are asked once (cached-answers.ts). */
  function searchAnswer(needle: string, countryFilter: string | null) {
    return answers.body(
      `search:${countryFilter ?? ''}:${needle}`,
      async () => {
        const channels = await catalogue.searchChannels(needle, countryFilter, MAX_SEARCH_RESULTS);
        return searchJson({
          results: channels.map((channel) => ({
            channelId: channel.id,
            name: channel.name,
            icon: channel.icon,
            country: channel.country,
            needsReview: channel.needsReview,
          })),
        });
      },
      'when-asked-again',
    );
  }

  v1.get(
    '/channels/:channelId/programmes',
    {
      schema: {
        summary: 'The schedule of a channel',
        params: ChannelParams,
        querystring: ProgrammesQuery,
        response: {
          200: ProgrammesResponse,
          400: ErrorBody,
          404: ErrorBody,
          ...keyedErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const windowAt = parseScheduleQuery(request.query.days, request.query.all);
      const channelId = request.params.channelId.toLowerCase();
      if (!isUuid(channelId)) throw errors.channelNotFound();
      // Already serialised with ProgrammeEntry by the cache: it goes out as it is. Its tag
      // changes with the catalogue version and with the window's programmes, so a client that
      // sends it back gets 304 exactly when the bytes would be the same.
      return answers.send(
        request,
        reply as unknown as FastifyReply,
        answers.schedule(channelId, windowAt),
      );
    },
  );
  refuseOtherMethods(app, '/channels/:channelId/programmes');

  v1.get(
    '/channels/:channelId/programmes/:programmeId',
    {
      schema: {
        summary: 'One programme with everything its guide says',
        params: ProgrammeParams,
        response: { 200: ProgrammeResponse, 404: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const channelId = request.params.channelId.toLowerCase();
      if (!isUuid(channelId)) throw errors.channelNotFound();
      const { programmeId } = request.params;
      const answer = answers.body(`programme:${channelId}:${programmeId}`, async () => {
        // A text that cannot be an id needs no read of the programmes, only of the channel.
        const programme = isProgrammeId(programmeId)
          ? await catalogue.findProgramme(channelId, programmeId)
          : null;
        if (programme !== null) return programmeJson({ programme });
        if (!(await catalogue.channelExists(channelId))) throw errors.channelNotFound();
        throw errors.programmeNotFound();
      });
      return answers.send(request, reply as unknown as FastifyReply, answer);
    },
  );
  refuseOtherMethods(app, '/channels/:channelId/programmes/:programmeId');
}
