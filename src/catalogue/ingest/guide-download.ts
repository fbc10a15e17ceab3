import { Buffer } from 'node:buffer';
import { describeError } from './ingest-error.js';

/**
 * The one HTTP request path for guides: `onair ingest <url>` streams its answer into the
 * parser, a source refresh saves it to a file. Both build the request the same way (credentials
 * as HTTP Basic), run under the same timeouts and size limit, and name the URL without its
 * secrets. It lives with the ingest so that sources/ imports it, never the other way round.
 */

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

/**
 * Failures of fetch that the same request meets again, said in words an operator can act on
 * and not tried again: each retry of a redirect loop cost 20 more requests and seconds.
 */
const FINAL_FETCH_FAILURES: readonly (readonly [RegExp, string])[] = [
  [/redirect count exceeded/, 'more than 20 redirects (a redirect loop?)'],
  [
    /\(bad port\)$/,
    'fetch refuses the port it, or a redirect from it, names (a port of another protocol, such as 1, 25 or 6000)',
  ],
  [
    /cross origin not allowed/,
    'a redirect to an address with a user name or password in it, which fetch refuses',
  ],
  [
    /incorrect header check/,
    'the server said Content-Encoding gzip (or deflate) but sent other bytes',
  ],
];

/** Longest wait a server's Retry-After may impose on a retry. */
const MAX_RETRY_AFTER_MS = 60_000;

/** What was last ingested from a source, sent back so an unchanged guide is not sent again. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

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

/** `scheme://…`: what looks like a URL, of any scheme (a file path never does). */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A location fit for logs, errors and metric labels: a URL of any scheme without its
 * credentials or query (either may hold a secret); a file path as it is.
 */
export function displayLocation(location: string): string {
  if (!URL_LIKE.test(location)) return location;
  try {
    const url = new URL(location);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    // Unparsable (a bad port, a stray character) yet maybe holding a password: everything
    // up to the last @ goes, as may some of the host; too much hidden beats a secret shown.
    return location.replace(/^([^:]+:\/\/).*@/s, '$1').replace(/[?#].*$/s, '');
  }
}

/**
 * Why `location` cannot be read, when it is a URL of a scheme other than http(s) (`ftp://…`,
 * a typo like `htps://…`); null for an http(s) URL or a file path.
 */
export function unsupportedScheme(location: string): string | null {
  if (isHttpLocation(location) || !URL_LIKE.test(location)) return null;
  const scheme = location.slice(0, location.indexOf(':') + 1).toLowerCase();
  return `unsupported URL scheme "${scheme}": give an http(s) URL or a file path`;
}

/** A guide refused for its size (`declared` when its Content-Length said so up front). */
export function tooLarge(
  maxBytes: number,
  answer: { status?: number; declared?: number } = {},
): DownloadError {
  const length = answer.declared === undefined ? '' : ` (Content-Length ${answer.declared})`;
  return new DownloadError(`the guide is larger than the limit of ${maxBytes} bytes${length}`, {
    status: answer.status ?? null,
    retryable: false,
  });
}

/** Passes the chunks through, refusing them once they come to more than `maxBytes`. */
export async function* withinSizeLimit(
  chunks: AsyncIterable<Buffer>,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
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

/**
 * Runs `attempt` until it succeeds, fails for good, or `limits.attempts` tries are spent;
 * retryable DownloadErrors are tried again after doubling waits (longer when the server's
 * Retry-After asks, up to a minute). With `deadlineMs`, no wait runs past that time: the last
 * error is final then. The final error names the tries when there was more than one.
 */
export async function withRetries<T>(
  limits: DownloadLimits,
  attempt: (count: number) => Promise<T>,
  options: { signal?: AbortSignal; deadlineMs?: number } = {},
): Promise<T> {
  for (let count = 1; ; count++) {
    try {
      return await attempt(count);
    } catch (error) {
      const wait =
        error instanceof DownloadError
          ? Math.max(
              limits.retryDelayMs * 2 ** (count - 1),
              Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS),
            )
          : 0;
      const pastDeadline =
        options.deadlineMs !== undefined && Date.now() + wait >= options.deadlineMs;
      if (
        !(error instanceof DownloadError) ||
        !error.retryable ||
        count >= limits.attempts ||
        pastDeadline
      ) {
        throw error instanceof DownloadError && count > 1
          ? new DownloadError(`${error.message} (after ${count} tries)`, error)
          : error;
      }
      await abortableSleep(wait, options.signal);
    }
  }
}

/** An answer whose body is being received (or a 304 to a conditional request, with none). */
export interface GuideAnswer {
  status: number;
  etag: string | null;
  lastModified: string | null;
  /** The body's size from Content-Length when that is the size received, else null. */
  totalBytes: number | null;
  /**
   * The body as it arrives, under the timeouts and the size limit; a body shorter than its
   * Content-Length fails at the end. Errors are DownloadErrors (or the caller's abort reason).
   */
  chunks: AsyncIterable<Buffer>;
  /** Stops the download and its timers; safe at any time, also after the end. */
  close(): Promise<void>;
}

export interface GuideRequestOptions {
  /** Sent as If-None-Match / If-Modified-Since; a 304 then answers with no body. */
  validators?: Validators;
  /** Stops the download at once (server shutdown); its reason is what the download throws. */
  signal?: AbortSignal;
  /** When the whole download must be over; by default `limits.timeoutMs` from now. */
  deadlineMs?: number;
}

/**
 * Requests a guide over http(s) and resolves once the status and headers are in: a 2xx (or a
 * 304 when validators were sent) gives its body to read; any other status, a network error or
 * a timeout is a DownloadError naming the URL without credentials or query. Credentials in the
 * URL go out as HTTP Basic authentication. One try: `withRetries` repeats it.
 */
export async function requestGuide(
  url: string,
  limits: DownloadLimits,
  options: GuideRequestOptions = {},
): Promise<GuideAnswer> {
  const { validators, signal } = options;
  // A URL that does not parse (a port out of range, a stray character) never will: said at
  // once, not tried again for the whole retry budget.
  let request: URL;
  try {
    request = new URL(url);
  } catch {
    throw new DownloadError(`${displayLocation(url)} is not a valid URL`, { retryable: false });
  }
  const controller = new AbortController();
  let answered: number | null = null;
  let expected: number | null = null;
  let received = 0;
  const fail = (message: string) =>
    controller.abort(new DownloadError(message, { status: answered, retryable: true }));
  const total = setTimeout(
    () => fail(`no complete answer within ${duration(limits.timeoutMs)}`),
    Math.max(0, (options.deadlineMs ?? Date.now() + limits.timeoutMs) - Date.now()),
  );
  // The idle clock runs only while waiting for the server, never while the reader (a parser,
  // a file) is busy with what already came.
  let idle: NodeJS.Timeout | undefined;
  const waitFor = (what: string) => {
    clearTimeout(idle);
    idle = setTimeout(
      () => fail(`${what} for ${duration(limits.idleTimeoutMs)}`),
      limits.idleTimeoutMs,
    );
  };
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  let ended = false;
  const end = (completed: boolean) => {
    if (ended) return;
    ended = true;
    clearTimeout(total);
    clearTimeout(idle);
    signal?.removeEventListener('abort', stop);
    if (!completed) controller.abort();
  };
  const failure = (error: unknown): unknown => {
    const reason: unknown = controller.signal.reason;
    if (controller.signal.aborted && reason instanceof DownloadError) return reason;
    if (error instanceof DownloadError) return error;
    if (signal?.aborted) return signal.reason;
    const cut = expected !== null ? `, cut short at ${received} of ${expected} bytes` : '';
    const described = describeError(error);
    const final = FINAL_FETCH_FAILURES.find(([pattern]) => pattern.test(described));
    return new DownloadError(
      `cannot fetch ${displayLocation(url)}: ${final?.[1] ?? `${described}${cut}`}`,
      { status: answered, retryable: final === undefined },
    );
  };

  let response: Response;
  try {
    waitFor('no answer');
    const headers: Record<string, string> = { 'user-agent': 'Onair guide refresh' };
    // fetch refuses a URL with credentials: they travel as HTTP Basic authentication instead.
    if (request.username !== '' || request.password !== '') {
      const user = decodeURIComponent(request.username);
      const password = decodeURIComponent(request.password);
      headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      request.username = '';
      request.password = '';
    }
    if (validators !== undefined) {
      if (validators.etag !== null) headers['if-none-match'] = validators.etag;
      if (validators.lastModified !== null) {
        headers['if-modified-since'] = validators.lastModified;
      }
    }
    response = await fetch(request, { headers, redirect: 'follow', signal: controller.signal });
    clearTimeout(idle);
    answered = response.status;
  } catch (error) {
    end(false);
    throw failure(error);
  }

  const status = response.status;
  const body = response.body;
  const notModified = status === 304 && validators !== undefined;
  if (!notModified && (!response.ok || body === null)) {
    end(false);
    await body?.cancel().catch(() => undefined);
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
  if (
    !notModified &&
    length !== null &&
    /^\d+$/.test(length) &&
    (encoding === null || encoding === 'identity')
  ) {
    expected = Number(length);
    if (expected > limits.maxBytes) {
      end(false);
      await body?.cancel().catch(() => undefined);
      throw tooLarge(limits.maxBytes, { status, declared: expected });
    }
  }
  const reader = notModified ? null : (body?.getReader() ?? null);
  if (reader === null) {
    end(true);
    await body?.cancel().catch(() => undefined);
  }

  async function* chunks(): AsyncGenerator<Buffer> {
    if (reader === null) return;
    let completed = false;
    try {
      for (;;) {
        waitFor('no data');
        const step = await reader.read().catch((error: unknown) => {
          throw failure(error);
        });
        clearTimeout(idle);
        if (step.done) break;
        const chunk = Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength);
        received += chunk.length;
        if (received > limits.maxBytes) throw tooLarge(limits.maxBytes, { status });
        yield chunk;
      }
      if (expected !== null && received !== expected) {
        throw new DownloadError(`the download was cut short: ${received} of ${expected} bytes`, {
          status,
          retryable: true,
        });
      }
      completed = true;
    } finally {
      end(completed);
      if (!completed) await reader.cancel().catch(() => undefined);
    }
  }

  return {
    status,
    etag: response.headers.get('etag'),
    lastModified: response.headers.get('last-modified'),
    totalBytes: expected,
    chunks: chunks(),
    close: async () => {
      end(reader === null);
      await reader?.cancel().catch(() => undefined);
    },
  };
}
