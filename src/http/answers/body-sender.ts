import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../domain/sha256.js';

/** Bodies smaller than this go out as they are: compression would not pay for itself. */
export const COMPRESS_FROM_BYTES = 1024;
/** Compressed bodies kept, by bytes; a cached body is compressed once per encoding. */
const COMPRESSED_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * A body in parts (a schedule: head, programmes, tail) at least this long is streamed from the
 * cached buffers instead of being copied into one: a long `days=all` costs no copy per request.
 */
export const STREAM_FROM_BYTES = 1024 * 1024;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Encoding = 'br' | 'gzip';

/**
 * Headers of every cached answer, 200 or 304: its tag, how to keep it, what it varies by. A
 * browser keeps the answer but asks again each time (`no-cache`), with its tag: a revoked key,
 * an ingest or a new change is seen by the next request, as the API promises, and an unchanged
 * answer costs a 304 without a body (`max-age=60` let a page reuse an answer for a minute
 * without asking, a revoked key's included).
 */
export function cachedAnswerHeaders(prepared: PreparedBody): [string, string][] {
  return [
    ['etag', prepared.etag],
    ['cache-control', 'private, no-cache'],
    ['vary', 'Accept-Encoding'],
  ];
}

/** A response body serialised ahead of time (with the route's response schema). */
export interface PreparedBody {
  /** The bytes, whole or in parts to be sent one after the other. */
  body: Buffer | readonly Buffer[];
  /** Names these bytes exactly (the key of their compressed forms). */
  tag: string;
  /** The `ETag` header value. */
  etag: string;
}

/** A tag an entity tag holds as it is: printable ASCII but `"` (RFC 9110), and no `%`. */
const PLAIN_TAG = /^[\x21\x23\x24\x26-\x7e]*$/;

/**
 * A weak `ETag` naming a tag: the tag itself when it can be, else `%` and a digest of it (a tag
 * as it is never holds `%`), so two tags never share an ETag: one made by turning the characters
 * an entity tag cannot hold into `_` gave channel searches for "e n" and "e_n", or for any two
 * single CJK characters, the same ETag for different answers.
 */
export function etagFor(tag: string): string {
  return PLAIN_TAG.test(tag) ? `W/"${tag}"` : `W/"%${sha256Hex(tag).slice(0, 32)}"`;
}

/** Brotli when the client takes it, else gzip, else none (`q=0` refuses an encoding). */
export function pickEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (acceptEncoding === undefined) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const refused = params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    if (name !== undefined && name !== '' && !refused) accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

/**
 * True when `If-None-Match` names this tag (or is `*`), compared weakly as RFC 9110 asks of it:
 * `"x"` and `W/"x"` name the same tag.
 */
export function namesTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag) return true;
  const bare = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = bare(etag);
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || bare(tag) === wanted;
  });
}

/** The length of a body, whole or in parts. */
export function lengthOf(body: Buffer | readonly Buffer[]): number {
  if (Buffer.isBuffer(body)) return body.length;
  let length = 0;
  for (const part of body as readonly Buffer[]) length += part.length;
  return length;
}

/** Sends prepared bodies; see createBodySender. */
export interface BodySender {
  /**
   * Sends `prepared` as the reply (200, or 304 when `If-None-Match` names it). `reply` is the
   * untyped reply: the typed one expects the response object, not its bytes.
   */
  send(
    request: FastifyRequest,
    reply: FastifyReply,
    prepared: PreparedBody,
  ): FastifyReply | Promise<FastifyReply>;
  /** The body compressed with `encoding` when that is done already, else undefined. */
  compressedNow(prepared: PreparedBody, encoding: Encoding): Buffer | undefined;
}

/**
 * Sends bodies serialised ahead of time with their `ETag`, and keeps their compressed forms. A
 * client that sends the tag back in `If-None-Match` gets 304 without the body. Bodies of 1 KB or
 * more go out brotli- or gzip-compressed when the client accepts it, compressed once per tag and
 * encoding off the event loop (zlib's thread pool), so a large body never stalls other requests.
 */
export function createBodySender(): BodySender {
  // Per app: a tag names the same bytes only within one catalogue.
  const compressed = new Map<string, Promise<Buffer>>();
  /** The compressed bodies that are ready, by the same keys (for answers that cannot wait). */
  const ready = new Map<string, Buffer>();
  const sizes = new Map<string, number>();
  let compressedBytes = 0;

  function evict(): void {
    for (const [key, size] of sizes) {
      if (compressedBytes <= COMPRESSED_CACHE_BYTES) break;
      sizes.delete(key);
      compressed.delete(key);
      ready.delete(key);
      compressedBytes -= size;
    }
  }

  function compress(prepared: PreparedBody, length: number, encoding: Encoding): Promise<Buffer> {
    const key = `${encoding}:${prepared.tag}`;
    const known = compressed.get(key);
    if (known !== undefined) {
      // Most recently used goes last.
      compressed.delete(key);
      compressed.set(key, known);
      const size = sizes.get(key);
      if (size !== undefined) {
        sizes.delete(key);
        sizes.set(key, size);
      }
      return known;
    }
    const input = Buffer.isBuffer(prepared.body)
      ? prepared.body
      : Buffer.concat(prepared.body as readonly Buffer[], length);
    // Moderate levels: a cached body is compressed once and sent many times.
    const out =
      encoding === 'br'
        ? brotliAsync(input, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 5,
              [constants.BROTLI_PARAM_SIZE_HINT]: input.length,
            },
          })
        : gzipAsync(input, { level: 6 });
    compressed.set(key, out);
    out.then(
      (buffer) => {
        if (compressed.get(key) !== out) return;
        ready.set(key, buffer);
        sizes.set(key, buffer.length);
        compressedBytes += buffer.length;
        evict();
      },
      () => compressed.delete(key),
    );
    return out;
  }

  function send(
    request: FastifyRequest,
    reply: FastifyReply,
    prepared: PreparedBody,
  ): FastifyReply | Promise<FastifyReply> {
    for (const [name, value] of cachedAnswerHeaders(prepared)) reply.header(name, value);
    if (namesTag(request.headers['if-none-match'], prepared.etag)) return reply.code(304).send();
    reply.type('application/json; charset=utf-8');
    const body = prepared.body;
    const length = lengthOf(body);
    const encoding =
      length >= COMPRESS_FROM_BYTES ? pickEncoding(request.headers['accept-encoding']) : null;
    if (encoding !== null) {
      return compress(prepared, length, encoding).then((out) =>
        reply.header('Content-Encoding', encoding).send(out),
      );
    }
    if (Buffer.isBuffer(body)) return reply.send(body);
    const parts = body as readonly Buffer[];
    if (length < STREAM_FROM_BYTES) return reply.send(Buffer.concat(parts, length));
    return reply.header('Content-Length', length).send(Readable.from(parts));
  }

  return {
    send,
    compressedNow: (prepared, encoding) => ready.get(`${encoding}:${prepared.tag}`),
  };
}

export type SendBody = BodySender['send'];
