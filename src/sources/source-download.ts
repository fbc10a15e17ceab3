import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { describeError } from '../catalogue/ingest/ingest-error.js';

/** Bounds of one guide download. */
export interface DownloadLimits {
  /** The whole download, from the request to the last byte. */
  timeoutMs: number;
  /** Longest wait for the response headers, and between two pieces of the body. */
  idleTimeoutMs: number;
  /** Largest body accepted (bytes as received, after any Content-Encoding is undone). */
  maxBytes: number;
  /** Tries per download: the first and the retries. */
  attempts: number;
  /** Wait before the first retry; it doubles for each further one. */
  retryDelayMs: number;
}

/**
 * The limits a deployment runs with: its overall timeout and size limit, at most a minute
 * without data, three tries two and four seconds apart.
 */
export function downloadLimits(timeoutMs: number, maxBytes: number): DownloadLimits {
  return {
    timeoutMs,
    idleTimeoutMs: Math.min(60_000, timeoutMs),
    maxBytes,
    attempts: 3,
    retryDelayMs: 2_000,
  };
}

/** Longest wait a server's Retry-After may impose on a retry. */
const MAX_RETRY_AFTER_MS = 60_000;

/** What was last ingested from a source, sent back so an unchanged guide is not sent again. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** The result of a download: the guide had not changed, or it is now in the target file. */
export type Download =
  | { kind: 'not-modified'; status: number | null; attempts: number }
  | {
      kind: 'fetched';
      status: number | null;
      bytes: number;
      sha256: string;
      etag: string | null;
      lastModified: string | null;
      attempts: number;
    };

/** A download that failed; `retryable` when trying again later may succeed. */
export class DownloadError extends Error {
  override name = 'DownloadError';
  readonly status: number | null;
  readonly retryable: boolean;
  /** Wait the server asked for (Retry-After), in ms. */
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    options: { status?: number | null; retryable: boolean; retryAfterMs?: number | null },
  ) {
    super(message);
    this.status = options.status ?? null;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

export function isHttpLocation(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * A location fit for logs, errors and metric labels: a URL without its credentials or query
 * (either may hold a secret); a file path as it is.
 */
export function displayLocation(location: string): string {
  if (!isHttpLocation(location)) return location;
  try {
    const url = new URL(location);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return location;
  }
}

function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Copies chunks to `target`, hashing and counting them, refusing more than `maxBytes`. */
async function save(
  chunks: AsyncIterable<Buffer | Uint8Array>,
  target: string,
  maxBytes: number,
  onChunk: (bytesSoFar: number) => void,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(
    chunks,
    async function* (source: AsyncIterable<Buffer | Uint8Array>) {
      for await (const chunk of source) {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          throw new DownloadError(`the guide is larger than the limit of ${maxBytes} bytes`, {
            retryable: false,
          });
        }
        hash.update(chunk);
        onChunk(bytes);
        yield chunk;
      }
    },
    createWriteStream(target),
  );
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * A local file as a source: its size and modification time stand for an ETag, so an untouched
 * file counts as not modified; otherwise it is copied (a snapshot the ingest reads).
 */
async function copyFile(
  path: string,
  validators: Validators,
  target: string,
  limits: DownloadLimits,
): Promise<Download> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new DownloadError(
      code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${describeError(error)}`,
      { retryable: true },
    );
  }
  if (!info.isFile()) throw new DownloadError(`${path} is not a file`, { retryable: false });
  const etag = `"${info.size}-${Math.trunc(info.mtimeMs)}"`;
  const lastModified = new Date(info.mtimeMs).toUTCString();
  if (validators.etag === etag) return { kind: 'not-modified', status: null, attempts: 1 };
  if (info.size > limits.maxBytes) {
    throw new DownloadError(`the guide is larger than the limit of ${limits.maxBytes} bytes`, {
      retryable: false,
    });
  }
  try {
    const saved = await save(createReadStream(path), target, limits.maxBytes, () => undefined);
    return { kind: 'fetched', status: null, ...saved, etag, lastModified, attempts: 1 };
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    throw new DownloadError(`cannot read ${path}: ${describeError(error)}`, { retryable: true });
  }
}

async function fetchOnce(
  url: string,
  validators: Validators,
  target: string,
  limits: DownloadLimits,
  signal: AbortSignal | undefined,
  attempt: number,
): Promise<Download> {
  const controller = new AbortController();
  let answered: number | null = null;
  const fail = (message: string) =>
    controller.abort(new DownloadError(message, { status: answered, retryable: true }));
  const total = setTimeout(
    () => fail(`no complete answer within ${duration(limits.timeoutMs)}`),
    limits.timeoutMs,
  );
  let idle: NodeJS.Timeout | undefined;
  const touch = (what: string) => {
    clearTimeout(idle);
    idle = setTimeout(
      () => fail(`${what} for ${duration(limits.idleTimeoutMs)}`),
      limits.idleTimeoutMs,
    );
  };
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  let expected: number | null = null;
  let received = 0;
  try {
    touch('no answer');
    const headers: Record<string, string> = { 'user-agent': 'Onair guide refresh' };
    // fetch refuses a URL with credentials: they travel as HTTP Basic authentication instead.
    const request = new URL(url);
    if (request.username !== '' || request.password !== '') {
      const user = decodeURIComponent(request.username);
      const password = decodeURIComponent(request.password);
      headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      request.username = '';
      request.password = '';
    }
    if (validators.etag !== null) headers['if-none-match'] = validators.etag;
    if (validators.lastModified !== null) headers['if-modified-since'] = validators.lastModified;
    const response = await fetch(request, {
      headers,
      redirect: 'follow',
      signal: controller.signal,
    });
    touch('no data');
    const status = response.status;
    answered = status;
    if (status === 304) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'not-modified', status, attempts: attempt };
    }
    if (!response.ok || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(
        `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''} from ${displayLocation(url)}`,
        {
          status,
          retryable: status >= 500 || status === 429 || status === 408,
          retryAfterMs: retryAfterMs(response.headers.get('retry-after'), Date.now()),
        },
      );
    }
    // fetch undoes a Content-Encoding, so Content-Length is the size received only without one.
    const length = response.headers.get('content-length');
    const encoding = response.headers.get('content-encoding');
    if (length !== null && /^\d+$/.test(length) && (encoding === null || encoding === 'identity')) {
      expected = Number(length);
      if (expected > limits.maxBytes) {
        await response.body.cancel().catch(() => undefined);
        throw new DownloadError(
          `the guide is larger than the limit of ${limits.maxBytes} bytes (Content-Length ${expected})`,
          { status, retryable: false },
        );
      }
    }
    const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
    const saved = await save(body, target, limits.maxBytes, (bytes) => {
      received = bytes;
      touch('no data');
    });
    if (expected !== null && saved.bytes !== expected) {
      throw new DownloadError(`the download was cut short: ${saved.bytes} of ${expected} bytes`, {
        status,
        retryable: true,
      });
    }
    return {
      kind: 'fetched',
      status,
      ...saved,
      etag: response.headers.get('etag'),
      lastModified: response.headers.get('last-modified'),
      attempts: attempt,
    };
  } catch (error) {
    const reason: unknown = controller.signal.reason;
    if (controller.signal.aborted && reason instanceof DownloadError) throw reason;
    if (error instanceof DownloadError) throw error;
    if (signal?.aborted) throw signal.reason;
    const cut = expected !== null ? `, cut short at ${received} of ${expected} bytes` : '';
    throw new DownloadError(`cannot fetch ${displayLocation(url)}: ${describeError(error)}${cut}`, {
      status: answered,
      retryable: true,
    });
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * Downloads a guide (http(s) URL or local file) into `target`, conditionally: with the
 * validators of the content last ingested, an unchanged guide answers 304 and nothing is
 * downloaded. Timeouts, a size limit, and retries with doubling waits for errors that may pass
 * (network, 5xx, 429, 408, a body cut short). Throws DownloadError; `signal` stops it at once.
 */
export async function downloadGuide(
  location: string,
  validators: Validators,
  target: string,
  limits: DownloadLimits,
  signal?: AbortSignal,
): Promise<Download> {
  if (!isHttpLocation(location)) return copyFile(location, validators, target, limits);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchOnce(location, validators, target, limits, signal, attempt);
    } catch (error) {
      if (!(error instanceof DownloadError) || !error.retryable || attempt >= limits.attempts) {
        throw error instanceof DownloadError && attempt > 1
          ? new DownloadError(`${error.message} (after ${attempt} tries)`, error)
          : error;
      }
      const backoff = limits.retryDelayMs * 2 ** (attempt - 1);
      await abortableSleep(
        Math.max(backoff, Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)),
        signal,
      );
    }
  }
}
