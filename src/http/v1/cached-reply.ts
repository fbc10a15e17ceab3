import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Bodies smaller than this go out as they are: compression would not pay for itself. */
const COMPRESS_FROM_BYTES = 1024;
/** Compressed bodies kept, by bytes; a cached body is compressed once per encoding. */
const COMPRESSED_CACHE_BYTES = 32 * 1024 * 1024;

type Encoding = 'br' | 'gzip';

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
 * Sends a body serialised ahead of time (with the route's response schema) with its `ETag`;
 * a client that sends the tag back in `If-None-Match` gets 304 without the body. Bodies of
 * 1 KB or more go out brotli- or gzip-compressed when the client accepts it, compressed once
 * per tag and encoding. `reply` is the untyped reply: the typed one expects the response
 * object, not its bytes.
 */
export function createCachedReplies() {
  // Per app: a tag names the same bytes only within one catalogue.
  const compressed = new Map<string, Buffer>();
  let compressedBytes = 0;

  function compress(tag: string, body: Buffer, encoding: Encoding): Buffer {
    const key = `${encoding}:${tag}`;
    let out = compressed.get(key);
    if (out !== undefined) {
      compressed.delete(key);
    } else {
      // Moderate levels: a cached body is compressed once and sent many times.
      out =
        encoding === 'br'
          ? brotliCompressSync(body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 5,
                [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
              },
            })
          : gzipSync(body, { level: 6 });
      compressedBytes += out.length;
    }
    compressed.set(key, out);
    for (const [oldKey, old] of compressed) {
      if (compressedBytes <= COMPRESSED_CACHE_BYTES) break;
      compressed.delete(oldKey);
      compressedBytes -= old.length;
    }
    return out;
  }

  return function sendCached(
    request: FastifyRequest,
    reply: FastifyReply,
    cached: { body: Buffer; tag: string },
  ): FastifyReply {
    const etag = `W/"${cached.tag.replace(/[^\x21\x23-\x7e]/g, '_')}"`;
    reply
      .header('ETag', etag)
      .header('Cache-Control', 'private, max-age=60')
      .header('Vary', 'Accept-Encoding');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    reply.type('application/json; charset=utf-8');
    const encoding =
      cached.body.length >= COMPRESS_FROM_BYTES
        ? pickEncoding(request.headers['accept-encoding'])
        : null;
    if (encoding === null) return reply.send(cached.body);
    return reply
      .header('Content-Encoding', encoding)
      .send(compress(cached.tag, cached.body, encoding));
  };
}

export type SendCached = ReturnType<typeof createCachedReplies>;
