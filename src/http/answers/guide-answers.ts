import type { Channel } from '../../domain/channel.js';
import {
  inWindow,
  nowAndNext,
  nowAndNextUntil,
  type ChannelSelection,
  type GuideQuery,
  type Instant,
  type NowQuery,
} from '../../domain/guide.js';
import type { TimedProgramme } from '../../domain/programme.js';
import { formatXmltvUtc } from '../../domain/xmltv-time.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import type { EntryCache } from './entry-cache.js';
import type { MovingAnswer } from './moving-cache.js';
import { utf8Bytes } from './utf8-bytes.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * How far past a guide window's end its programmes are read: those starting in this margin say
 * when the next one enters the window as `from` moves, so an answer at `now` is kept until then
 * (or for this long) rather than read again every second.
 */
const LOOK_AHEAD_MS = HOUR_MS;

/** The channels of a guide or now/next answer: found (in answer order), missing ids, next page. */
export interface SelectedChannels {
  channels: readonly Channel[];
  missing: readonly string[];
  next: number | null;
}

/** The ids of a `channels=` selection in the order given: those among `known`, and the rest. */
export function listedChannels(ids: readonly string[], known: Iterable<Channel>): SelectedChannels {
  const byId = new Map<string, Channel>();
  for (const channel of known) byId.set(channel.id, channel);
  const channels: Channel[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const channel = byId.get(id);
    if (channel === undefined) missing.push(id);
    else channels.push(channel);
  }
  return { channels, missing, next: null };
}

/**
 * What an answer may show: all of the catalogue for the v1 routes; for the playground, the
 * programmes of the preview days, its windows clipped to them.
 */
export interface GuideScope {
  /** What the body starts with before its own fields: `{`, or `{` and the preview fields. */
  head: string;
  /** The instants whose programmes can be shown: [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  /** The window answered for a requested one (clipped to the scope). */
  window(fromMs: number, spanMs: number): { fromMs: number; toMs: number };
  /** Whether a programme read can be shown. */
  shows(programme: TimedProgramme): boolean;
}

/** The v1 routes' scope: every programme, any window. */
export const WHOLE_CATALOGUE: GuideScope = {
  head: '{',
  fromMs: Number.NEGATIVE_INFINITY,
  toMs: Number.POSITIVE_INFINITY,
  window: (fromMs, spanMs) => ({ fromMs, toMs: fromMs + spanMs }),
  shows: () => true,
};

/** The cache key of a guide answer (route and parameters; `now` stays `now`). */
export function guideKey(query: GuideQuery): string {
  return `guide?${selectionKey(query.selection)}&from=${instantKey(query.from)}&hours=${query.hours}`;
}

/** The cache key of a now/next answer. */
export function nowKey(query: NowQuery): string {
  return `now?${selectionKey(query.selection)}&at=${instantKey(query.at)}`;
}

function selectionKey(selection: ChannelSelection): string {
  return selection.kind === 'country'
    ? `country=${selection.country}&limit=${selection.limit}&offset=${selection.offset}`
    : `channels=${selection.ids.join(',')}`;
}

function instantKey(instant: Instant): string {
  return instant.kind === 'now' ? 'now' : String(instant.ms);
}

/** A channel's fields in the order of the schemas' `guideChannelFields`. */
export function channelFields(channel: Channel) {
  return {
    channelId: channel.id,
    name: channel.name,
    icon: channel.icon,
    country: channel.country,
    needsReview: channel.needsReview,
  };
}

/** A channel's JSON object without its closing brace, the fields after it still to come. */
const channelOpen = (channel: Channel) => JSON.stringify(channelFields(channel)).slice(0, -1);

/**
 * The end of a guide or now/next body, as UTF-8: each channel's pieces (`channels`: its fields,
 * then its entries, kept as UTF-8 in the entry cache) written once into one buffer
 * (utf8-bytes.ts), copied behind the instant at each second the answer is asked for.
 */
function tailOf(
  channels: readonly (readonly (string | Buffer)[])[],
  selected: SelectedChannels,
): Buffer {
  const pieces: (string | Buffer)[] = [',"channels":['];
  channels.forEach((channel, i) => {
    if (i > 0) pieces.push(',');
    pieces.push(...channel);
  });
  pieces.push(
    `],"missing":${JSON.stringify(selected.missing)},"next":${JSON.stringify(selected.next)}}`,
  );
  return utf8Bytes(pieces);
}

/**
 * The guide grid and now/next answers (rules: domain/guide.ts), for the v1 routes and the
 * playground alike. Each is a moving answer (moving-cache.ts): read once, and kept until the
 * programmes it shows may change as its instant moves with the clock.
 */
export function createGuideAnswers(
  catalogue: Pick<CatalogueReader, 'programmesBetween' | 'programmesAfter'>,
  entryCache: EntryCache,
) {
  return {
    /** The grid of `selected` for `hours` from `instantMs`. */
    async guide(
      selected: SelectedChannels,
      hours: number,
      instantMs: number,
      scope: GuideScope = WHOLE_CATALOGUE,
    ): Promise<MovingAnswer> {
      const spanMs = hours * HOUR_MS;
      const { fromMs, toMs } = scope.window(instantMs, spanMs);
      const readToMs = Math.min(toMs + LOOK_AHEAD_MS, scope.toMs);
      // An empty window (a preview's, wholly outside its days) shows nothing, not even the
      // programme on air at its instant.
      const read =
        selected.channels.length === 0 || fromMs >= toMs || fromMs >= readToMs
          ? new Map<string, TimedProgramme[]>()
          : await catalogue.programmesBetween(
              selected.channels.map((c) => c.id),
              fromMs,
              readToMs,
            );
      // The programmes shown change when one of them stops, or one read ahead starts inside
      // the window (from this second on, `from + hours` passes its start).
      let validUntilMs = instantMs + LOOK_AHEAD_MS;
      const entries = selected.channels.map((channel) => {
        const listed = (read.get(channel.id) ?? []).filter(scope.shows);
        const shown = inWindow(listed, fromMs, toMs);
        for (const p of shown) validUntilMs = Math.min(validUntilMs, p.stopMs);
        const entering = listed.find((p) => p.startMs >= toMs);
        if (entering !== undefined) {
          validUntilMs = Math.min(validUntilMs, entering.startMs - spanMs + 1000);
        }
        const pieces: (string | Buffer)[] = [`${channelOpen(channel)},"programmes":[`];
        shown.forEach((p, i) => {
          if (i > 0) pieces.push(',');
          pieces.push(entryCache.json(p));
        });
        pieces.push(']}');
        return pieces;
      });
      const tail = tailOf(entries, selected);
      return {
        validUntilMs,
        bytes: scope.head.length + tail.length,
        render: (atMs) => {
          const window = scope.window(atMs, spanMs);
          const head = `${scope.head}"from":"${formatXmltvUtc(window.fromMs)}","to":"${formatXmltvUtc(window.toMs)}"`;
          return utf8Bytes([head, tail]);
        },
      };
    },

    /** What runs on `selected` at `atMs`, and what starts next. */
    async now(
      selected: SelectedChannels,
      atMs: number,
      scope: GuideScope = WHOLE_CATALOGUE,
    ): Promise<MovingAnswer> {
      const ids = selected.channels.map((c) => c.id);
      const inScope = atMs >= scope.fromMs && atMs < scope.toMs;
      const [running, after] =
        ids.length === 0 || !inScope
          ? [new Map<string, TimedProgramme[]>(), new Map<string, TimedProgramme>()]
          : await Promise.all([
              // Starts are whole seconds: start < at + 1 s is start ≤ at.
              catalogue.programmesBetween(ids, atMs, atMs + 1000),
              catalogue.programmesAfter(ids, atMs),
            ]);
      let validUntilMs = inScope ? Math.min(atMs + DAY_MS, scope.toMs) : atMs + 1000;
      const entries = selected.channels.map((channel) => {
        const candidates = (running.get(channel.id) ?? []).filter(scope.shows);
        const following = after.get(channel.id);
        if (following !== undefined && following.startMs < scope.toMs && scope.shows(following)) {
          candidates.push(following);
        }
        const chosen = nowAndNext(candidates, atMs);
        validUntilMs = Math.min(validUntilMs, nowAndNextUntil(candidates, atMs) ?? validUntilMs);
        const entry = (p: TimedProgramme | null) => (p === null ? 'null' : entryCache.json(p));
        return [
          `${channelOpen(channel)},"now":`,
          entry(chosen.now),
          ',"next":',
          entry(chosen.next),
          '}',
        ];
      });
      const tail = tailOf(entries, selected);
      return {
        validUntilMs,
        bytes: scope.head.length + tail.length,
        render: (instantMs) =>
          utf8Bytes([`${scope.head}"at":"${formatXmltvUtc(instantMs)}"`, tail]),
      };
    },
  };
}

export type GuideAnswers = ReturnType<typeof createGuideAnswers>;
