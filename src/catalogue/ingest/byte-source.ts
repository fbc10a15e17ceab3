import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { IngestError, describeError as describe } from './ingest-error.js';
import {
  displayLocation,
  DownloadError,
  isHttpLocation,
  requestGuide,
  unsupportedScheme,
  withRetries,
  type DownloadLimits,
  type GuideAnswer,
} from './guide-download.js';

/**
 * Bytes per read from a local file. Each chunk becomes one string for the parser, and a string
 * longer than V8's largest regular object (128 KiB: 64 Ki characters once one of them is
 * outside Latin-1) is made in its large-object space, each in a fresh mapping of memory (see
 * PIECE_CHARS in storage/packed-rows.ts): the 92 MB bench guide decoded in 256 KiB chunks took
 * 480 ms, in 32 KiB chunks 19 ms (`node bench/string-pieces.mjs FILE`).
 */
const FILE_CHUNK_BYTES = 32 * 1024;
/** Bytes per chunk out of gunzip: zlib's default of 16 KiB means many tiny parser writes. */
const GUNZIP_CHUNK_BYTES = 32 * 1024;

/**
 * Where an ingest reads from: a path or http(s) URL, bytes already in memory, a local file
 * recorded under another name (a download kept in a temporary file, named by its URL), or a
 * stream of unknown length (standard input: a grabber piped in).
 */
export type IngestInput =
  | { source: string }
  | { name: string; data: Uint8Array }
  | { name: string; path: string }
  | { name: string; stream: AsyncIterable<Buffer> };

/** An opened input: its chunks, and its size when known up front. */
export interface ByteSource {
  /** The path, URL or name, as given. */
  name: string;
  /** Size of the bytes as read (before any gunzip), or null when not known in advance. */
  totalBytes: number | null;
  chunks: AsyncIterable<Buffer>;
  /** Releases the file or connection; safe to call at any time, also after the end. */
  close(): Promise<void>;
}

/**
 * Opens a guide URL through the download path sources use (credentials, timeouts, size limit,
 * redaction). Failures before the body starts (no answer, a network error, 5xx, 429, 408) are
 * retried like a source's, within one deadline of `limits.timeoutMs` for the tries and the
 * body together, so the timeout still bounds a one-shot ingest. Once the body flows, a failure
 * is final: its bytes already went into the parser, which cannot rewind (downloading to a
 * temporary file first would cost a second copy of a guide of up to the size limit, on disk,
 * before any parsing).
 */
async function openUrl(url: string, limits: DownloadLimits): Promise<ByteSource> {
  const deadlineMs = Date.now() + limits.timeoutMs;
  let answer: GuideAnswer;
  try {
    answer = await withRetries(limits, () => requestGuide(url, limits, { deadlineMs }), {
      deadlineMs,
    });
  } catch (error) {
    throw error instanceof DownloadError ? new IngestError(error.message) : error;
  }
  return {
    // The ingest record, logs and summaries never keep credentials or a query (an API key).
    name: displayLocation(url),
    totalBytes: answer.totalBytes,
    chunks: answer.chunks,
    close: () => answer.close(),
  };
}

async function openFile(path: string): Promise<ByteSource> {
  try {
    const handle = await open(path, 'r');
    let size: number;
    try {
      const stat = await handle.stat();
      if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      size = stat.size;
    } catch (error) {
      await handle.close();
      throw error;
    }
    const stream = handle.createReadStream({ highWaterMark: FILE_CHUNK_BYTES, autoClose: true });
    return {
      name: path,
      totalBytes: size,
      chunks: stream,
      close: async () => {
        stream.destroy();
      },
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : describe(error);
    throw new IngestError(`cannot read "${path}": ${reason}`);
  }
}

async function* memoryChunks(data: Uint8Array): AsyncGenerator<Buffer> {
  const buffer = Buffer.isBuffer(data)
    ? data
    : Buffer.from(data.buffer, data.byteOffset, data.length);
  for (let at = 0; at < buffer.length; at += FILE_CHUNK_BYTES) {
    yield buffer.subarray(at, at + FILE_CHUNK_BYTES);
  }
}

/**
 * Opens a local file, an http(s) URL (streamed within `limits`; a refused request, like a URL
 * of another scheme, is an IngestError), in-memory bytes or a stream.
 */
export async function openByteSource(
  input: IngestInput,
  limits: DownloadLimits,
): Promise<ByteSource> {
  if ('data' in input) {
    return {
      name: input.name,
      totalBytes: input.data.length,
      chunks: memoryChunks(input.data),
      close: async () => undefined,
    };
  }
  if ('path' in input) return { ...(await openFile(input.path)), name: input.name };
  if ('stream' in input) {
    return {
      name: input.name,
      totalBytes: null,
      chunks: input.stream,
      close: async () => undefined,
    };
  }
  if (isHttpLocation(input.source)) return openUrl(input.source, limits);
  // Said as such, not as a missing file whose "path" would repeat a URL's password.
  const unsupported = unsupportedScheme(input.source);
  if (unsupported !== null) throw new IngestError(unsupported);
  return openFile(input.source);
}

/** Running size and SHA-256 of the bytes as read. */
export interface ByteTally {
  bytes: number;
  /** Hex digest; final once the chunks have been read to the end. */
  sha256(): string;
}

/**
 * Passes the chunks through while counting and hashing them, calling `onChunk` with the running
 * byte count after each one.
 */
export function tallied(
  chunks: AsyncIterable<Buffer>,
  onChunk: (bytes: number) => void,
): { chunks: AsyncIterable<Buffer>; tally: ByteTally } {
  const hash = createHash('sha256');
  let digest: string | null = null;
  const tally: ByteTally = {
    bytes: 0,
    sha256: () => (digest ??= hash.digest('hex')),
  };
  async function* run(): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      hash.update(chunk);
      tally.bytes += chunk.length;
      onChunk(tally.bytes);
      yield chunk;
    }
  }
  return { chunks: run(), tally };
}

function gzipError(error: unknown): Error {
  const code = (error as { code?: string }).code;
  if (code === 'Z_BUF_ERROR')
    return new Error('the gzip data is truncated (unexpected end of file)');
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new Error(`the gzip data is corrupt (${describe(error)})`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Gunzips the chunks when they start with the gzip magic bytes (1f 8b), whatever the name says;
 * otherwise passes them through. `onGzip` learns which it was. Decompression runs on libuv's
 * thread pool, so it overlaps with parsing.
 */
export async function* gunzipIfGzip(
  chunks: AsyncIterable<Buffer>,
  onGzip: (gzip: boolean) => void,
): AsyncGenerator<Buffer> {
  const source = chunks[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  while (head.length < 2) {
    const step = await source.next();
    if (step.done === true) break;
    head = head.length === 0 ? step.value : Buffer.concat([head, step.value]);
  }
  const gzip = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  onGzip(gzip);
  async function* rest(): AsyncGenerator<Buffer> {
    let done = false;
    try {
      if (head.length > 0) yield head;
      for (;;) {
        const step = await source.next();
        if (step.done === true) {
          done = true;
          return;
        }
        yield step.value;
      }
    } finally {
      // Closes the file or download when the reader stops early.
      if (!done) await source.return?.();
    }
  }
  if (!gzip) {
    yield* rest();
    return;
  }
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
  const input = Readable.from(rest());
  const output = pipeline(input, gunzip, () => undefined);
  try {
    for await (const chunk of output) yield chunk as Buffer;
  } catch (error) {
    throw gzipError(error);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}
