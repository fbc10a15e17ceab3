import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isUuid } from '../../domain/catalogue-ids.js';
import { parseCountryCode } from '../../domain/country.js';
import { errors } from '../../domain/errors.js';
import { parseScheduleWindow } from '../../domain/schedule-window.js';
import { MAX_SEARCH_RESULTS, searchNeedle } from '../../domain/search-folding.js';
import type { CatalogueReader } from '../../storage/types.js';
import {
  ChannelParams,
  ErrorBody,
  keyedErrorResponses,
  ProgrammesQuery,
  ProgrammesResponse,
  SearchQuery,
  SearchResponse,
} from '../schemas.js';
import { refuseOtherMethods } from './method-guard.js';
import type { ScheduleCache } from './schedule-cache.js';

/** GET /api/v1/channels/search and GET /api/v1/channels/:channelId/programmes. */
export function registerChannelsRoutes(
  app: FastifyInstance,
  catalogue: CatalogueReader,
  schedules: ScheduleCache,
  now: () => number,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();

  v1.get(
    '/channels/search',
    {
      schema: {
        summary: 'Search channels by name',
        querystring: SearchQuery,
        response: { 200: SearchResponse, 400: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request) => {
      const { q, country } = request.query;
      const countryFilter =
        country === undefined || country.trim() === '' ? null : parseCountryCode(country);
      const needle = searchNeedle(q);
      if (needle === null) return { results: [] };
      const channels = await catalogue.searchChannels(needle, countryFilter, MAX_SEARCH_RESULTS);
      return {
        results: channels.map((channel) => ({
          channelId: channel.id,
          name: channel.name,
          icon: channel.icon,
          country: channel.country,
          needsReview: channel.needsReview,
        })),
      };
    },
  );
  refuseOtherMethods(app, '/channels/search');

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
      const window = parseScheduleWindow(request.query.days, request.query.all, now());
      const channelId = request.params.channelId.toLowerCase();
      const body = isUuid(channelId) ? await schedules.body(channelId, window) : null;
      if (body === null) throw errors.channelNotFound();
      // The tag changes with the catalogue version and with the window's programmes, so a
      // client that sends it back gets 304 exactly when the bytes would be the same.
      const etag = `W/"${body.tag}"`;
      // The body is already serialised with ProgrammeEntry by the cache and goes out as it is,
      // which the typed reply (expecting the object) cannot express.
      const raw = reply as unknown as FastifyReply;
      raw.header('ETag', etag).header('Cache-Control', 'private, max-age=60');
      if (request.headers['if-none-match'] === etag) return raw.code(304).send();
      return raw.type('application/json; charset=utf-8').send(body.json);
    },
  );
  refuseOtherMethods(app, '/channels/:channelId/programmes');
}
