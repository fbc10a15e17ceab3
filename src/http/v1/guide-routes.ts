import type { FastifyInstance, FastifyReply } from 'fastify';
import fastJson from 'fast-json-stringify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Channel } from '../../domain/channel.js';
import {
  inWindow,
  nowAndNext,
  nowAndNextUntil,
  pageOf,
  parseGuideQuery,
  parseNowQuery,
  resolveInstant,
  type ChannelSelection,
  type Instant,
} from '../../domain/guide.js';
import { richProgrammeOf, type TimedProgramme } from '../../domain/programme.js';
import { formatXmltvUtc } from '../../domain/xmltv-time.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import type { CachedAnswers } from '../answers/cached-answers.js';
import type { MovingAnswer } from '../answers/moving-cache.js';
import {
  ErrorBody,
  GuideChannelEntry,
  GuideQuery,
  GuideResponse,
  keyedErrorResponses,
  NowChannelEntry,
  NowQuery,
  NowResponse,
} from '../schemas.js';
import { refuseOtherMethods } from './method-guard.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * How far past a guide window's end its programmes are read: those starting in this margin say
 * when the next one enters the window as `from` moves, so an answer at `now` is kept until then
 * (or for this long) rather than read again every second.
 */
const LOOK_AHEAD_MS = HOUR_MS;

/** The channels a selection names: a country's page, or the ids given, found and missing. */
async function selectChannels(catalogue: CatalogueReader, selection: ChannelSelection) {
  if (selection.kind === 'country') {
    const { page, next } = pageOf(
      await catalogue.listChannels(selection.country),
      selection.limit,
      selection.offset,
    );
    return { channels: page, missing: [] as string[], next };
  }
  const found = new Map((await catalogue.findChannels(selection.ids)).map((c) => [c.id, c]));
  const channels: Channel[] = [];
  const missing: string[] = [];
  for (const id of selection.ids) {
    const channel = found.get(id);
    if (channel === undefined) missing.push(id);
    else channels.push(channel);
  }
  return { channels, missing, next: null };
}

function channelFields(channel: Channel) {
  return {
    channelId: channel.id,
    name: channel.name,
    icon: channel.icon,
    country: channel.country,
    needsReview: channel.needsReview,
  };
}

const rich = (p: TimedProgramme) => richProgrammeOf(p.channelId, p.programme, p.details);

function selectionKey(selection: ChannelSelection): string {
  return selection.kind === 'country'
    ? `country=${selection.country}&limit=${selection.limit}&offset=${selection.offset}`
    : `channels=${selection.ids.join(',')}`;
}

function instantKey(instant: Instant): string {
  return instant.kind === 'now' ? 'now' : String(instant.ms);
}

/**
 * GET /api/v1/guide and GET /api/v1/now: many channels' programmes of a window, or what is on
 * now and next, in one request (the rules: domain/guide.ts). Both are moving answers: read once
 * per programme boundary, written out per second (answers/moving-cache.ts).
 */
export function registerGuideRoutes(
  app: FastifyInstance,
  catalogue: CatalogueReader,
  answers: CachedAnswers,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();
  const guideChannelsJson = fastJson({ type: 'array', items: GuideChannelEntry } as object);
  const nowChannelsJson = fastJson({ type: 'array', items: NowChannelEntry } as object);

  async function buildGuide(
    selection: ChannelSelection,
    hours: number,
    fromMs: number,
  ): Promise<MovingAnswer> {
    const spanMs = hours * HOUR_MS;
    const toMs = fromMs + spanMs;
    const { channels, missing, next } = await selectChannels(catalogue, selection);
    const read =
      channels.length === 0
        ? new Map<string, TimedProgramme[]>()
        : await catalogue.programmesBetween(
            channels.map((c) => c.id),
            fromMs,
            toMs + LOOK_AHEAD_MS,
          );
    // The window's programmes change when one shown stops, or one read ahead starts inside it.
    let validUntilMs = fromMs + LOOK_AHEAD_MS;
    const entries = channels.map((channel) => {
      const programmes = read.get(channel.id) ?? [];
      const shown = inWindow(programmes, fromMs, toMs);
      for (const p of shown) validUntilMs = Math.min(validUntilMs, p.stopMs);
      const entering = programmes.find((p) => p.startMs >= toMs);
      if (entering !== undefined) {
        // From this second on, `from + hours` passes its start.
        validUntilMs = Math.min(validUntilMs, entering.startMs - spanMs + 1000);
      }
      return { ...channelFields(channel), programmes: shown.map(rich) };
    });
    const channelsJson = guideChannelsJson(entries);
    const tail = `,"channels":${channelsJson},"missing":${JSON.stringify(missing)},"next":${JSON.stringify(next)}}`;
    return {
      validUntilMs,
      bytes: tail.length,
      render: (instantMs) =>
        `{"from":"${formatXmltvUtc(instantMs)}","to":"${formatXmltvUtc(instantMs + spanMs)}"${tail}`,
    };
  }

  async function buildNow(selection: ChannelSelection, atMs: number): Promise<MovingAnswer> {
    const { channels, missing, next } = await selectChannels(catalogue, selection);
    const ids = channels.map((c) => c.id);
    const [running, after] =
      ids.length === 0
        ? [new Map<string, TimedProgramme[]>(), new Map<string, TimedProgramme>()]
        : await Promise.all([
            // Starts are whole seconds: start < at + 1 s is start ≤ at.
            catalogue.programmesBetween(ids, atMs, atMs + 1000),
            catalogue.programmesAfter(ids, atMs),
          ]);
    let validUntilMs = atMs + DAY_MS;
    const entries = channels.map((channel) => {
      const candidates = [...(running.get(channel.id) ?? [])];
      const following = after.get(channel.id);
      if (following !== undefined) candidates.push(following);
      const chosen = nowAndNext(candidates, atMs);
      validUntilMs = Math.min(validUntilMs, nowAndNextUntil(candidates, atMs) ?? validUntilMs);
      return {
        ...channelFields(channel),
        now: chosen.now === null ? null : rich(chosen.now),
        next: chosen.next === null ? null : rich(chosen.next),
      };
    });
    const tail = `,"channels":${nowChannelsJson(entries)},"missing":${JSON.stringify(missing)},"next":${JSON.stringify(next)}}`;
    return {
      validUntilMs,
      bytes: tail.length,
      render: (instantMs) => `{"at":"${formatXmltvUtc(instantMs)}"${tail}`,
    };
  }

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
      const key = `guide?${selectionKey(query.selection)}&from=${instantKey(query.from)}&hours=${query.hours}`;
      const answer = answers.moving(
        key,
        (nowMs) => resolveInstant(query.from, nowMs),
        (fromMs) => buildGuide(query.selection, query.hours, fromMs),
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
      const key = `now?${selectionKey(query.selection)}&at=${instantKey(query.at)}`;
      const answer = answers.moving(
        key,
        (nowMs) => resolveInstant(query.at, nowMs),
        (atMs) => buildNow(query.selection, atMs),
      );
      return answers.send(request, reply as unknown as FastifyReply, answer);
    },
  );
  refuseOtherMethods(app, '/now');
}
