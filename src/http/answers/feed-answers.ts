import { once } from 'node:events';
import { pipeline, Readable, Transform } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { guideFeedXml } from '../../catalogue/feeds/guide-feed.js';
import { feedWindow, lineupKey, type Feed } from '../../domain/feed.js';
import { sha256Hex } from '../../domain/sha256.js';
import type { FeedStore } from '../../storage/feed-store.js';
import { namesTag } from './body-sender.js';

/** A generated feed kept whole (gzip) up to this size; a larger one is generated per fetch. */
const KEEP_UP_TO_BYTES = 16 * 1024 * 1024;
/** All kept feeds together, by their gzip bytes. */
const KEPT_BYTES = 96 * 1024 * 1024;
/** Feeds named (tag and time) whether or not their bytes are kept. */
const MAX_ENTRIES = 1024;

/**
 * One generated feed: what names it and, when small enough, its gzip bytes. A feed's document
 * is the programmes starting in [from, to): it stays the same while `to` has not passed the
 * next start after the window's end when it was made (`nextStart`).
 */
interface FeedEntry {
  etag: string;
  /** When it was made, to the second (HTTP dates have no finer unit): never later than now. */
  lastModifiedMs: number;
  /**
   * True when the feed's address had another document dated the same second (an ingest right
   * after a fetch): `If-Modified-Since` of that second does not tell the two apart.
   */
  sameSecond: boolean;
  nextStart: number | null;
  gzip: Buffer | null;
}

/** How a fetch wants its bytes: `.gz` (the file is gzip), or guide.xml, gzip or plain. */
export type FeedForm = 'gz-file' | 'gzip' | 'plain';

export interface FeedAnswers {
  send(
    request: FastifyRequest,
    reply: FastifyReply,
    feed: Feed,
    catalogueVersion: string,
    form: FeedForm,
    nowMs: number,
  ): Promise<FastifyReply>;
}

/** True when `Accept-Encoding` takes gzip (`q=0` refuses it). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  return acceptEncoding
    .toLowerCase()
    .split(',')
    .some((part) => {
      const [name, ...params] = part.trim().split(';');
      const refused = params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
      return !refused && (name?.trim() === 'gzip' || name?.trim() === '*');
    });
}

/** The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's and asctime's. */
const HTTP_DATE = [
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * True when `If-Modified-Since` says the client's copy is this document. Asked only without
 * `If-None-Match`, which names the document exactly: the date is for fetches like `curl -z
 * guide.xml` or `wget -N`, which send the time of the copy they hold. What is not an HTTP-date,
 * or is later than now, is ignored (RFC 9110 §13.1.3). A document made in the same second as
 * the one before it (`sameSecond`) is not told from it by a date: only a later second is.
 */
function notModifiedSince(
  ifModifiedSince: string | undefined,
  entry: Pick<FeedEntry, 'lastModifiedMs' | 'sameSecond'>,
  nowMs: number,
): boolean {
  if (ifModifiedSince === undefined || !HTTP_DATE.some((form) => form.test(ifModifiedSince))) {
    return false;
  }
  const since = Date.parse(ifModifiedSince);
  if (!Number.isFinite(since) || since > nowMs) return false;
  return entry.sameSecond ? since > entry.lastModifiedMs : since >= entry.lastModifiedMs;
}

/**
 * Feeds as media servers fetch them: generated as a stream (flat memory for any lineup), kept
 * as gzip per catalogue version, lineup and window when small enough, with ETag, 304 and
 * Last-Modified. Feeds of the same lineup and days share what is kept.
 */
export function createFeedAnswers(feeds: FeedStore): FeedAnswers {
  const entries = new Map<string, FeedEntry>();
  let keptBytes = 0;
  /** The `Last-Modified` last given to each feed address's documents (lineup and days). */
  const lastModifiedOf = new Map<string, number>();
  /**
   * The date of a new document of a feed: when it was made, to the second. Dating it a second
   * after the one before instead (to keep them apart) put dates ahead of the clock after quick
   * changes, and a copy dated ahead of the next document was then taken for it; so a same-second
   * document is marked instead (FeedEntry.sameSecond).
   */
  const lastModifiedFor = (address: string, nowMs: number) => {
    const ms = Math.floor(nowMs / 1000) * 1000;
    const previous = lastModifiedOf.get(address);
    lastModifiedOf.delete(address);
    lastModifiedOf.set(address, ms);
    // As many addresses as entries are kept, the least recently made dropped first.
    for (const [oldest] of lastModifiedOf) {
      if (lastModifiedOf.size <= MAX_ENTRIES) break;
      lastModifiedOf.delete(oldest);
    }
    return { lastModifiedMs: ms, sameSecond: previous !== undefined && previous >= ms };
  };

  const forget = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    keptBytes -= entry.gzip?.length ?? 0;
    entries.delete(key);
  };
  const remember = (key: string, entry: FeedEntry) => {
    forget(key);
    entries.set(key, entry);
    keptBytes += entry.gzip?.length ?? 0;
    for (const [oldest] of entries) {
      if (entries.size <= MAX_ENTRIES && keptBytes <= KEPT_BYTES) break;
      forget(oldest);
    }
  };

  return {
    async send(request, reply, feed, catalogueVersion, form, nowMs) {
      const { fromMs, toMs } = feedWindow(feed, nowMs);
      const address = `${lineupKey(feed.lineup)}\n${feed.daysAhead}`;
      const key = `${catalogueVersion}\n${fromMs}\n${address}`;
      let entry = entries.get(key);
      if (entry !== undefined && entry.nextStart !== null && toMs > entry.nextStart) {
        forget(key);
        entry = undefined;
      }
      // The lineup's channels with a programme in the window (XMLTV validators refuse a
      // channel without any); the next start after the window is any lineup channel's.
      const lineupOfWindow = async () => {
        const lineup = await feeds.lineupChannels(feed.lineup);
        const ids = lineup.map((c) => c.id);
        const shown = await feeds.channelsWithProgrammes(ids, fromMs, toMs);
        return { ids, channels: lineup.filter((c) => shown.has(c.id)) };
      };
      let inWindow = null;
      if (entry === undefined) {
        inWindow = await lineupOfWindow();
        const nextStart = await feeds.firstStartFrom(inWindow.ids, toMs);
        entry = {
          etag: `W/"feed-${sha256Hex(`${key}\n${nextStart}`).slice(0, 32)}"`,
          ...lastModifiedFor(address, nowMs),
          nextStart,
          gzip: null,
        };
        remember(key, entry);
      } else {
        // Used: last to be dropped.
        entries.delete(key);
        entries.set(key, entry);
      }

      reply.header('ETag', entry.etag);
      reply.header('Last-Modified', new Date(entry.lastModifiedMs).toUTCString());
      reply.header('Cache-Control', 'private, no-cache');
      if (form !== 'gz-file') reply.header('Vary', 'Accept-Encoding');
      const ifNoneMatch = request.headers['if-none-match'];
      if (
        ifNoneMatch === undefined
          ? notModifiedSince(request.headers['if-modified-since'], entry, nowMs)
          : namesTag(ifNoneMatch, entry.etag)
      ) {
        return reply.code(304).send();
      }

      reply.type(form === 'gz-file' ? 'application/gzip' : 'application/xml; charset=utf-8');
      if (form === 'gzip') reply.header('Content-Encoding', 'gzip');
      if (entry.gzip !== null) {
        return form === 'plain'
          ? reply.send(Readable.from([entry.gzip]).pipe(createGunzip()))
          : reply.header('Content-Length', entry.gzip.length).send(entry.gzip);
      }

      inWindow ??= await lineupOfWindow();
      const parts = guideFeedXml(feeds, inWindow.channels, fromMs, toMs);
      const gzip = createGzip();
      // The gzip bytes are kept while they fit, so the next fetch is answered without a read.
      const kept: Buffer[] = [];
      let keptLength = 0;
      const keep = (chunk: Buffer) => {
        keptLength += chunk.length;
        if (keptLength <= KEEP_UP_TO_BYTES) kept.push(chunk);
      };
      const made = entry;
      const finish = () => {
        if (keptLength <= KEEP_UP_TO_BYTES && entries.get(key) === made) {
          remember(key, { ...made, gzip: Buffer.concat(kept, keptLength) });
        }
      };
      if (form !== 'plain') {
        // Each part is read when the client has taken the last (back-pressure along the pipe);
        // a failed read ends the response.
        const keeper = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            keep(chunk);
            done(null, chunk);
          },
          flush(done) {
            finish();
            done();
          },
        });
        return reply.send(pipeline(Readable.from(parts), gzip, keeper, () => {}));
      }
      gzip.on('data', keep);
      gzip.on('end', finish);
      // The client reads the text; its gzip is made alongside for the next fetch. A part is
      // read when the client has taken the last and the gzip has room: memory stays flat.
      async function* teed(): AsyncGenerator<string> {
        for await (const part of parts) {
          if (!gzip.write(part)) await once(gzip, 'drain');
          yield part;
        }
        gzip.end();
      }
      return reply.send(Readable.from(teed()));
    },
  };
}
