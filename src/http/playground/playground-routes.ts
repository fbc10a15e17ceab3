import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastJson from 'fast-json-stringify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TObject, type TProperties } from 'typebox';
import { isUuid } from '../../domain/catalogue-ids.js';
import { parseCountryCode } from '../../domain/country.js';
import { errors } from '../../domain/errors.js';
import {
  pageOf,
  parseGuideQuery,
  parseNowQuery,
  resolveInstant,
  type ChannelSelection,
} from '../../domain/guide.js';
import { parseProgrammeSearchQuery, searchWindow } from '../../domain/programme-search.js';
import { clipToPreview, showsInPreview, type PreviewWindow } from '../../domain/preview-window.js';
import { isProgrammeId } from '../../domain/programme-id.js';
import { retryAfterSeconds } from '../../domain/rate-window.js';
import { parseScheduleWindow } from '../../domain/schedule-window.js';
import { foldForSearch, MAX_SEARCH_RESULTS, searchNeedle } from '../../domain/search-folding.js';
import { parseXmltvTime } from '../../domain/xmltv-time.js';
import type { RateLimiter } from '../../ratelimit/types.js';
import type { Channel, CountryCount } from '../../domain/channel.js';
import type { MaybeAsync } from '../../domain/maybe-async.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import type { DataVersions } from '../../storage/store.js';
import type { PlaygroundStore } from '../../storage/playground-store.js';
import { versionsOf } from '../api-guard.js';
import { sendError } from '../error-handler.js';
import {
  ChannelParams,
  ChannelsResponse,
  CountriesResponse,
  CountryParams,
  ErrorBody,
  GuideQuery,
  GuideResponse,
  NowQuery,
  NowResponse,
  ProgrammeParams,
  ProgrammeSearchQuery,
  ProgrammeSearchResponse,
  ProgrammeResponse,
  ProgrammesQuery,
  ProgrammesResponse,
  SearchQuery,
  SearchResponse,
} from '../schemas.js';
import type { SendBody } from '../answers/body-sender.js';
import { refuseOtherMethods } from '../method-guard.js';
import type { BodyCache } from '../answers/body-cache.js';
import type { ScheduleCache } from '../answers/schedule-cache.js';
import type { EntryCache } from '../answers/entry-cache.js';
import { createProgrammeSearchAnswers } from '../answers/programme-search-answers.js';
import {
  createGuideAnswers,
  guideKey,
  listedChannels,
  nowKey,
  type GuideScope,
  type SelectedChannels,
} from '../answers/guide-answers.js';
import type { MovingCache } from '../answers/moving-cache.js';

/** Where the playground API lives; its routes mirror those under `/api/v1`. */
export const PLAYGROUND_API_PREFIX = '/playground/api';

/** Said by every playground answer, in the body of a 200 and in this header of every one. */
export const PREVIEW_NOTICE =
  'Preview data: a few channels, today and tomorrow (UTC) only. The customer API is /api/v1 (see /docs).';
export const PREVIEW_HEADER = 'Onair-Preview';

/** A v1 response schema with the two fields that mark a playground answer as preview data. */
export function previewOf<T extends TProperties>(schema: TObject<T>) {
  return Type.Object({
    preview: Type.Literal(true),
    notice: Type.String(),
    ...schema.properties,
  });
}

export const PreviewCountriesResponse = previewOf(CountriesResponse);
export const PreviewChannelsResponse = previewOf(ChannelsResponse);
export const PreviewSearchResponse = previewOf(SearchResponse);
export const PreviewProgrammesResponse = previewOf(ProgrammesResponse);
export const PreviewProgrammeResponse = previewOf(ProgrammeResponse);
export const PreviewGuideResponse = previewOf(GuideResponse);
export const PreviewNowResponse = previewOf(NowResponse);
export const PreviewProgrammeSearchResponse = previewOf(ProgrammeSearchResponse);

const PREVIEW_HEAD = `{"preview":true,"notice":${JSON.stringify(PREVIEW_NOTICE)},`;

/**
 * Turns a v1 body (serialised by the v1 response schema, so an object with at least one field)
 * into its preview form by splicing the two preview fields in after the opening brace: the
 * schedule cache's bytes are reused as they are, not parsed and serialised again.
 */
function markPreview(v1Body: Buffer | readonly Buffer[]): Buffer {
  const [first, ...rest] = Buffer.isBuffer(v1Body) ? [v1Body] : v1Body;
  return Buffer.concat([PREVIEW_HEAD_BYTES, (first ?? Buffer.from('{')).subarray(1), ...rest]);
}
const PREVIEW_HEAD_BYTES = Buffer.from(PREVIEW_HEAD);

/** What the playground API needs; chosen once at start-up. */
export interface PlaygroundDeps {
  /** The store's data versions, read once per request (see Store.versions). */
  versions: () => MaybeAsync<DataVersions>;
  playground: PlaygroundStore;
  /** Reads one programme in full (the detail route), and the guide's and now/next's programmes. */
  catalogue: Pick<
    CatalogueReader,
    | 'findProgramme'
    | 'programmesBetween'
    | 'programmesAfter'
    | 'searchProgrammes'
    | 'programmesFound'
  >;
  schedules: ScheduleCache;
  bodies: BodyCache;
  /** The app's store of moving answers (guide, now/next), under keys of the playground's own. */
  moving: MovingCache;
  /** The app's programme entries kept as JSON (guide, now/next, search). */
  entries: EntryCache;
  sendBody: SendBody;
  /** Counts requests per client IP. */
  limiter: RateLimiter;
  limit: number;
  now: () => number;
}

function countriesOf(channels: Channel[]): CountryCount[] {
  const counts = new Map<string, number>();
  for (const channel of channels) {
    counts.set(channel.country, (counts.get(channel.country) ?? 0) + 1);
  }
  // Country codes are ASCII, so code-unit order is the byte order of the v1 list.
  return [...counts.keys()].sort().map((country) => ({
    country,
    channelCount: counts.get(country) ?? 0,
  }));
}

/**
 * The preview channels a guide or now/next selection names: a country's marked channels in the
 * playground's channel-list order (paged as v1 pages a country), or the ids given, where an id
 * that is not a marked channel is `missing` exactly as an id no channel has: the preview does
 * not tell the two apart.
 */
function selectPreview(marked: readonly Channel[], selection: ChannelSelection): SelectedChannels {
  if (selection.kind === 'country') {
    const { page, next } = pageOf(
      marked.filter((channel) => channel.country === selection.country),
      selection.limit,
      selection.offset,
    );
    return { channels: page, missing: [] as string[], next };
  }
  return listedChannels(selection.ids, marked);
}

/**
 * The part of the guide window [from, from + span) inside the preview days: the window the
 * playground answers for, and names in `from` and `to`. A window wholly outside is empty, at
 * the preview's nearer edge, as `days=yesterday` is an empty schedule.
 */
function clipGuideWindow(
  fromMs: number,
  spanMs: number,
  preview: PreviewWindow,
): { fromMs: number; toMs: number } {
  const from = Math.min(Math.max(fromMs, preview.fromMs), preview.toMs);
  return { fromMs: from, toMs: Math.max(from, Math.min(fromMs + spanMs, preview.toMs)) };
}

/**
 * The keyless preview API under `/playground/api`: the v1 routes with the same parameters,
 * rules, response schemas and caches, over the channels the operator marked for the playground
 * and only today and tomorrow of their schedules (a programme's details, the guide grid and
 * now/next too, with the programme on air as today begins). Limited per client IP; every answer
 * carries the `Onair-Preview` header and every 200 body says `"preview": true`.
 */
export async function registerPlaygroundApi(
  app: FastifyInstance,
  deps: PlaygroundDeps,
): Promise<void> {
  const countriesJson = fastJson(CountriesResponse as object);
  const channelsJson = fastJson(ChannelsResponse as object);
  const searchJson = fastJson(SearchResponse as object);
  const programmeJson = fastJson(ProgrammeResponse as object);
  const { bodies, sendBody } = deps;

  /** The preview body cached under `key`, built from the v1 serialisation. */
  const cachedPreview = (request: FastifyRequest, key: string, build: () => Promise<string>) =>
    bodies.get(
      `playground:${key}`,
      versionsOf(request).catalogue,
      async () => PREVIEW_HEAD + (await build()).slice(1),
    );

  let marked: { version: string; channels: Channel[]; ids: Set<string> } | null = null;
  async function markedChannels(version: string) {
    if (marked === null || marked.version !== version) {
      const channels = await deps.playground.listChannels();
      marked = { version, channels, ids: new Set(channels.map((c) => c.id)) };
    }
    return marked;
  }
  const markedIds = async (version: string) => (await markedChannels(version)).ids;

  const build = createGuideAnswers(deps.catalogue, deps.entries);
  const search = createProgrammeSearchAnswers(deps.catalogue, deps.entries);
  /** The preview's scope: programmes the preview schedule lists, windows clipped to its days. */
  const previewScope = (preview: PreviewWindow): GuideScope => ({
    head: PREVIEW_HEAD,
    fromMs: preview.fromMs,
    toMs: preview.toMs,
    window: (fromMs, spanMs) => clipGuideWindow(fromMs, spanMs, preview),
    shows: (p) => showsInPreview(preview, p.startMs, p.stopMs),
  });

  await app.register(
    async (api) => {
      api.addHook('onRequest', async (request, reply) => {
        reply.header(PREVIEW_HEADER, 'true');
        const decision = await deps.limiter.hit(`ip:${request.ip}`, deps.limit);
        if (!decision.allowed) {
          throw errors.playgroundRateLimited(retryAfterSeconds(decision));
        }
        request.dataVersions = await deps.versions();
      });
      api.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFound()));
      const typed = api.withTypeProvider<TypeBoxTypeProvider>();

      typed.get(
        '/countries',
        { schema: { response: { 200: PreviewCountriesResponse, 429: ErrorBody } } },
        async (request, reply) =>
          sendBody(
            request,
            reply as unknown as FastifyReply,
            await cachedPreview(request, 'countries', async () =>
              countriesJson({ countries: countriesOf(await deps.playground.listChannels()) }),
            ),
          ),
      );
      refuseOtherMethods(api, '/countries');

      typed.get(
        '/countries/:country/channels',
        {
          schema: {
            params: CountryParams,
            response: { 200: PreviewChannelsResponse, 400: ErrorBody, 429: ErrorBody },
          },
        },
        async (request, reply) => {
          const country = parseCountryCode(request.params.country);
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await cachedPreview(request, `channels:${country}`, async () =>
              channelsJson({
                country,
                channels: (await deps.playground.listChannels()).filter(
                  (channel) => channel.country === country,
                ),
              }),
            ),
          );
        },
      );
      refuseOtherMethods(api, '/countries/:country/channels');

      typed.get(
        '/channels/search',
        {
          schema: {
            querystring: SearchQuery,
            response: { 200: PreviewSearchResponse, 400: ErrorBody, 429: ErrorBody },
          },
        },
        async (request, reply) => {
          const { q, country } = request.query;
          const countryFilter =
            country === undefined || country.trim() === '' ? null : parseCountryCode(country);
          const needle = searchNeedle(q);
          // The few marked channels are matched here, with the same folding as the catalogue's
          // search index; they come in name order already.
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await cachedPreview(
              request,
              `search:${countryFilter ?? ''}:${needle ?? ''}`,
              async () => {
                const channels =
                  needle === null
                    ? []
                    : (await deps.playground.listChannels()).filter(
                        (channel) =>
                          (countryFilter === null || channel.country === countryFilter) &&
                          foldForSearch(channel.name).includes(needle),
                      );
                return searchJson({
                  results: channels.slice(0, MAX_SEARCH_RESULTS).map((channel) => ({
                    channelId: channel.id,
                    name: channel.name,
                    icon: channel.icon,
                    country: channel.country,
                    needsReview: channel.needsReview,
                  })),
                });
              },
            ),
          );
        },
      );
      refuseOtherMethods(api, '/channels/search');

      typed.get(
        '/channels/:channelId/programmes',
        {
          schema: {
            params: ChannelParams,
            querystring: ProgrammesQuery,
            response: {
              200: PreviewProgrammesResponse,
              400: ErrorBody,
              404: ErrorBody,
              429: ErrorBody,
            },
          },
        },
        async (request, reply) => {
          const nowMs = deps.now();
          const window = clipToPreview(
            parseScheduleWindow(request.query.days, request.query.all, nowMs),
            nowMs,
          );
          const channelId = request.params.channelId.toLowerCase();
          const version = versionsOf(request).catalogue;
          const body =
            isUuid(channelId) && (await markedIds(version)).has(channelId)
              ? await deps.schedules.body(channelId, window, version)
              : null;
          if (body === null) throw errors.channelNotInPreview();
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await bodies.get(`playground:${body.tag}`, version, () => markPreview(body.body)),
          );
        },
      );
      refuseOtherMethods(api, '/channels/:channelId/programmes');

      typed.get(
        '/channels/:channelId/programmes/:programmeId',
        {
          schema: {
            params: ProgrammeParams,
            response: { 200: PreviewProgrammeResponse, 404: ErrorBody, 429: ErrorBody },
          },
        },
        async (request, reply) => {
          // The programmes the preview schedule lists (a parsed start today or tomorrow) and
          // the one on air at today's midnight, which its now/next and guide grid show.
          const preview = clipToPreview({ kind: 'all' }, deps.now());
          const channelId = request.params.channelId.toLowerCase();
          const { programmeId } = request.params;
          const version = versionsOf(request).catalogue;
          if (!isUuid(channelId) || !(await markedIds(version)).has(channelId)) {
            throw errors.channelNotInPreview();
          }
          // The day is in the key: a kept answer must not outlive the window it was allowed in.
          const key = `programme:${preview.fromMs}:${channelId}:${programmeId}`;
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await cachedPreview(request, key, async () => {
              const programme = isProgrammeId(programmeId)
                ? await deps.catalogue.findProgramme(channelId, programmeId)
                : null;
              const startMs = programme === null ? null : parseXmltvTime(programme.start);
              const stopMs = programme === null ? null : parseXmltvTime(programme.stop);
              if (startMs === null || !showsInPreview(preview, startMs, stopMs)) {
                throw errors.programmeNotFound();
              }
              return programmeJson({ programme });
            }),
          );
        },
      );
      refuseOtherMethods(api, '/channels/:channelId/programmes/:programmeId');

      typed.get(
        '/guide',
        {
          schema: {
            querystring: GuideQuery,
            response: { 200: PreviewGuideResponse, 400: ErrorBody, 429: ErrorBody },
          },
        },
        async (request, reply) => {
          const query = parseGuideQuery(request.query);
          const nowMs = deps.now();
          const preview = clipToPreview({ kind: 'all' }, nowMs);
          const version = versionsOf(request).catalogue;
          // The preview day is in the key: a kept answer must not outlive the days it shows.
          const key = `playground:day=${preview.fromMs}:${guideKey(query)}`;
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await deps.moving.get(key, version, resolveInstant(query.from, nowMs), async (fromMs) =>
              build.guide(
                selectPreview((await markedChannels(version)).channels, query.selection),
                query.hours,
                fromMs,
                previewScope(preview),
              ),
            ),
          );
        },
      );
      refuseOtherMethods(api, '/guide');

      typed.get(
        '/now',
        {
          schema: {
            querystring: NowQuery,
            response: { 200: PreviewNowResponse, 400: ErrorBody, 429: ErrorBody },
          },
        },
        async (request, reply) => {
          const query = parseNowQuery(request.query);
          const nowMs = deps.now();
          const preview = clipToPreview({ kind: 'all' }, nowMs);
          const version = versionsOf(request).catalogue;
          const key = `playground:day=${preview.fromMs}:${nowKey(query)}`;
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await deps.moving.get(key, version, resolveInstant(query.at, nowMs), async (atMs) =>
              build.now(
                selectPreview((await markedChannels(version)).channels, query.selection),
                atMs,
                previewScope(preview),
              ),
            ),
          );
        },
      );
      refuseOtherMethods(api, '/now');

      typed.get(
        '/programmes/search',
        {
          schema: {
            querystring: ProgrammeSearchQuery,
            response: { 200: PreviewProgrammeSearchResponse, 400: ErrorBody, 429: ErrorBody },
          },
        },
        async (request, reply) => {
          const query = parseProgrammeSearchQuery(request.query);
          const nowMs = deps.now();
          const window = searchWindow(query, nowMs);
          // Only the marked channels, and only programmes starting today or tomorrow.
          const preview = clipToPreview({ kind: 'all' }, nowMs);
          const fromMs = Math.max(window.fromMs, preview.fromMs);
          const toMs = Math.min(window.toMs, preview.toMs);
          const version = versionsOf(request).catalogue;
          const ids = [...(await markedIds(version))];
          const channels = query.channels?.filter((id) => ids.includes(id)) ?? ids;
          const key = `programmes-search:${fromMs}:${toMs}:${search.keyOf(query)}`;
          return sendBody(
            request,
            reply as unknown as FastifyReply,
            await bodies.get(`playground:${key}`, version, async () =>
              markPreview((await search.page(query, fromMs, toMs, channels)).body),
            ),
          );
        },
      );
      refuseOtherMethods(api, '/programmes/search');
    },
    { prefix: PLAYGROUND_API_PREFIX },
  );
}
