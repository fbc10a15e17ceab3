import { OnairError } from './errors.js';
import type {
  ChangesResponse,
  ChannelSelection,
  ChannelsResponse,
  CountriesResponse,
  GuideResponse,
  Instant,
  NowResponse,
  ProgrammeResponse,
  ProgrammeSearchResponse,
  ProgrammesResponse,
  RichProgramme,
  ScheduleDays,
  SearchResponse,
} from './types.js';

/** What happened before a retry, for logging. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before it. */
  delayMs: number;
  error: OnairError;
}

/** Automatic retries of answers that say "try again": 429, 503, and failed connections. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries?: number | undefined;
  /** Longest wait before one retry; a longer `Retry-After` fails at once instead (default 30 s). */
  maxDelayMs?: number | undefined;
  /** Called before each retry. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /**
   * Spread the waits at random (default true), so that clients refused together do not all
   * come back in the same instant: a `Retry-After` wait gets up to a second more (the budget's
   * window, and never past `maxDelayMs`), a back-off wait is taken between its half and its
   * whole.
   */
  jitter?: boolean | undefined;
}

/** The request budget as the last answer told it (its `RateLimit` header). */
export interface RateLimitState {
  /** Requests the key's account may make per window. */
  limit: number;
  /** Requests left in the current window after that answer. */
  remaining: number;
  /** Seconds until the window resets, as of `receivedAt`. */
  resetSeconds: number;
  /** When the answer came (ms since the epoch). */
  receivedAt: number;
}

export interface OnairClientOptions {
  /** The deployment's base URL (its PUBLIC_URL), e.g. `https://api.example.com`. */
  baseUrl: string;
  apiKey: string;
  /** How the key is sent: `Authorization: Bearer` (default) or `X-API-Key`. */
  auth?: 'bearer' | 'x-api-key' | undefined;
  /** Retry 429 and 503 answers as `Retry-After` says, and failed connections. Off by default. */
  retry?: boolean | RetryOptions | undefined;
  /** Time allowed for one attempt (default 30 s). */
  timeoutMs?: number | undefined;
  /** The fetch to use (default: the platform's). */
  fetch?: typeof fetch | undefined;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, including a wait between retries. */
  signal?: AbortSignal | undefined;
}

/** Options of `guide()`: the channels, and the window from `from` (default now), `hours` long. */
export type GuideOptions = CallOptions &
  ChannelSelection & {
    /** Start of the window (default `'now'`). */
    from?: Instant | undefined;
    /** Length of the window in hours, 1 to 48 (default 3). */
    hours?: number | undefined;
  };

/** Options of `now()`: the channels, and the instant (default now). */
export type NowOptions = CallOptions &
  ChannelSelection & {
    /** The instant (default `'now'`). */
    at?: Instant | undefined;
  };

/** Options of `searchProgrammes()`: filters, the window and the page. */
export type SearchProgrammesOptions = CallOptions & {
  /** Only channels of this country. */
  country?: string | undefined;
  /** Only these channels (1 to 100 ids). */
  channels?: readonly string[] | undefined;
  /** Programmes starting at or after this (default `'now'`). */
  from?: Instant | undefined;
  /** Programmes starting before this (default 14 days after `from`, at most 31 days after). */
  to?: Date | string | undefined;
  /** Results per page, 1 to 200 (default 50). */
  limit?: number | undefined;
  /** `next` of the previous page, with the same other options. */
  cursor?: string | undefined;
};

/** Options of `changes()` and `followChanges()`: which channels, how many a page. */
export type ChangesOptions = CallOptions & {
  /** Only the channels of this country (their country now). */
  country?: string | undefined;
  /** Only these channels (1 to 100 ids). */
  channels?: readonly string[] | undefined;
  /** Records per page, 1 to 1000 (default 500). */
  limit?: number | undefined;
};

/** An instant as the API reads it: a Date in ISO 8601 (UTC), a string as it is. */
function instantText(name: string, value: Instant): string {
  if (typeof value === 'string') return value;
  // toISOString would throw a bare "Invalid time value" without saying which option.
  if (Number.isNaN(value.getTime())) throw new RangeError(`${name} is an invalid Date`);
  return value.toISOString();
}

/**
 * The query of a guide or now/next call. What the caller gives is sent as it is, so the server
 * judges it (and answers 400 INVALID_PARAMETERS for both or neither selection, say) rather than
 * the client repeating its rules.
 */
function gridQuery(
  options: ChannelSelection,
  extra: Record<string, string | number | undefined>,
): URLSearchParams {
  const query = new URLSearchParams();
  if (options.country !== undefined) query.set('country', options.country);
  if (options.channels !== undefined) query.set('channels', options.channels.join(','));
  const rest = { limit: options.limit, offset: options.offset, ...extra };
  for (const [name, value] of Object.entries(rest)) {
    if (value !== undefined) query.set(name, String(value));
  }
  return query;
}

/** RetryOptions with every default filled in. */
interface RetryPolicy {
  retries: number;
  maxDelayMs: number;
  onRetry: (info: RetryInfo) => void;
  jitter: boolean;
}

const NO_RETRY: RetryPolicy = { retries: 0, maxDelayMs: 0, onRetry: () => {}, jitter: false };

/** `limit=3, remaining=2, reset=1` (the API's `RateLimit` header), or null. */
function rateLimitOf(value: string | null, receivedAt: number): RateLimitState | null {
  if (value === null) return null;
  const fields = new Map<string, number>();
  for (const part of value.split(',')) {
    const match = /^\s*([a-z]+)=(\d+)\s*$/i.exec(part);
    if (match?.[1] !== undefined) fields.set(match[1].toLowerCase(), Number(match[2]));
  }
  const limit = fields.get('limit');
  const remaining = fields.get('remaining');
  const resetSeconds = fields.get('reset');
  if (limit === undefined || remaining === undefined || resetSeconds === undefined) return null;
  return { limit, remaining, resetSeconds, receivedAt };
}

/** Seconds from a `Retry-After` value (seconds or an HTTP date), or null. */
function retryAfterSeconds(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * A client of the Onair API: one method per route, typed answers, and an `OnairError` with the
 * HTTP status and the API's code for every failure. Works with any deployment: give it that
 * deployment's base URL.
 *
 * ```ts
 * const onair = new OnairClient({ baseUrl: 'https://api.example.com', apiKey, retry: true });
 * const { programmes } = await onair.listProgrammes(channelId, { days: 'today' });
 * ```
 */
export class OnairClient {
  readonly baseUrl: string;
  readonly #headers: Record<string, string>;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  #rateLimit: RateLimitState | null = null;

  constructor(options: OnairClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got "${options.baseUrl}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got "${options.baseUrl}"`);
    }
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('apiKey is required');
    }
    // Accept the base URL with or without a trailing slash or the /api/v1 prefix.
    this.baseUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    const key = options.apiKey.trim();
    this.#headers = {
      accept: 'application/json',
      ...(options.auth === 'x-api-key' ? { 'x-api-key': key } : { authorization: `Bearer ${key}` }),
    };
    this.#retry =
      options.retry === undefined || options.retry === false
        ? NO_RETRY
        : {
            retries: options.retry === true ? 2 : (options.retry.retries ?? 2),
            maxDelayMs: options.retry === true ? 30_000 : (options.retry.maxDelayMs ?? 30_000),
            onRetry: options.retry === true ? () => {} : (options.retry.onRetry ?? (() => {})),
            jitter: options.retry === true ? true : (options.retry.jitter ?? true),
          };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * The request budget as the latest answer that carried one told it (null before the first):
   * pace calls by `remaining` and `resetSeconds` rather than by 429s. With calls in flight at
   * once, it is the budget after whichever answer came last.
   */
  get rateLimit(): RateLimitState | null {
    return this.#rateLimit;
  }

  /** Every country with its number of channels, ordered by code. */
  listCountries(options: CallOptions = {}): Promise<CountriesResponse> {
    return this.#get('/countries', options);
  }

  /** A country's channels, by name (case-insensitive) then id. The code matches in any case. */
  listChannels(country: string, options: CallOptions = {}): Promise<ChannelsResponse> {
    return this.#get(`/countries/${encodeURIComponent(country)}/channels`, options);
  }

  /**
   * Channels whose name contains `q` (ignoring case and accents), optionally in one country;
   * at most 200, by name. A blank `q` finds nothing.
   */
  searchChannels(
    q: string,
    options: CallOptions & { country?: string | undefined } = {},
  ): Promise<SearchResponse> {
    const query = new URLSearchParams({ q });
    if (options.country !== undefined) query.set('country', options.country);
    return this.#get(`/channels/search?${query}`, options);
  }

  /**
   * A channel's schedule, ordered by start: the last `days` days and everything after
   * (default 7), a UTC day (`today`, `tomorrow`, `yesterday`), or `all`.
   */
  listProgrammes(
    channelId: string,
    options: CallOptions & { days?: ScheduleDays | undefined } = {},
  ): Promise<ProgrammesResponse> {
    const query = options.days === undefined ? '' : `?days=${encodeURIComponent(options.days)}`;
    return this.#get(`/channels/${encodeURIComponent(channelId)}/programmes${query}`, options);
  }

  /**
   * One programme of a channel with everything its guide says of it (episode numbering,
   * sub-titles, credits, images, ratings, flags…). `programmeId` is the `id` of an entry of the
   * channel's schedule; one that is not throws `PROGRAMME_NOT_FOUND`. Returns the answer's
   * `programme`, the only field it has.
   */
  async getProgramme(
    channelId: string,
    programmeId: string,
    options: CallOptions = {},
  ): Promise<RichProgramme> {
    const answer = await this.#get<ProgrammeResponse>(
      `/channels/${encodeURIComponent(channelId)}/programmes/${encodeURIComponent(programmeId)}`,
      options,
    );
    return answer.programme;
  }

  /**
   * The programmes of many channels in a window, in one request (one against the rate limit):
   * a TV guide grid. Give `country` (every channel of it, paged by `limit` and `offset`; `next`
   * is the next `offset` or null) or `channels` (1 to 100 ids; unknown ones come back in
   * `missing`). The window is [`from`, `from` + `hours`): `from` defaults to now, `hours` to 3
   * (at most 48). A channel's programmes are those running in the window, by start, each a
   * full `RichProgramme`. Returns the whole answer.
   *
   * ```ts
   * const grid = await onair.guide({ country: 'UK', hours: 4 });
   * const evening = await onair.guide({ channels: [a, b], from: new Date('2026-08-22T18:00Z') });
   * ```
   */
  guide(options: GuideOptions): Promise<GuideResponse> {
    const from = options.from === undefined ? undefined : instantText('from', options.from);
    const query = gridQuery(options, { from, hours: options.hours });
    return this.#get(`/guide?${query}`, options);
  }

  /**
   * What is on at `at` (default now) and what comes next on many channels, in one request.
   * Channels as in `guide()`. `now` is the programme running at `at` (of overlapping ones, the
   * latest start), `next` the first starting after it; either may be null.
   */
  now(options: NowOptions): Promise<NowResponse> {
    const at = options.at === undefined ? undefined : instantText('at', options.at);
    return this.#get(`/now?${gridQuery(options, { at })}`, options);
  }

  /**
   * Programmes by their words across every channel and country: each word of `q` must be a word
   * of the title, sub-title, description, categories or credits' names (ignoring case and
   * accents), the last also the start of one (`'star tre'` finds "Star Trek"). By start, then
   * channel name, then id; `next` is the `cursor` of the next page, or null. A blank `q` finds
   * nothing.
   *
   * ```ts
   * const { results, next } = await onair.searchProgrammes('star trek', { country: 'UK' });
   * const more = next && (await onair.searchProgrammes('star trek', { country: 'UK', cursor: next }));
   * ```
   */
  searchProgrammes(
    q: string,
    options: SearchProgrammesOptions = {},
  ): Promise<ProgrammeSearchResponse> {
    const query = new URLSearchParams({ q });
    if (options.country !== undefined) query.set('country', options.country);
    if (options.channels !== undefined) query.set('channels', options.channels.join(','));
    if (options.from !== undefined) query.set('from', instantText('from', options.from));
    if (options.to !== undefined) query.set('to', instantText('to', options.to));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    return this.#get(`/programmes/search?${query}`, options);
  }

  /**
   * `GET /api/v1/changes`: what the ingests changed after `since` (a `next` of an earlier
   * answer), in order; without `since` (null or left out), an empty page whose `next` is the
   * newest record now, to start following from. A `since` older than the records kept fails
   * with `CURSOR_EXPIRED` (410): read again what you keep, then follow from now.
   */
  changes(since: number | null = null, options: ChangesOptions = {}): Promise<ChangesResponse> {
    const query = new URLSearchParams();
    if (since !== null) query.set('since', String(since));
    if (options.country !== undefined) query.set('country', options.country);
    if (options.channels !== undefined) query.set('channels', options.channels.join(','));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const text = query.toString();
    return this.#get(`/changes${text === '' ? '' : `?${text}`}`, options);
  }

  /**
   * Every page of changes after `since`, following `next` while the answer says `hasMore`;
   * ends with the page that caught up (its `next` is where to follow from later).
   *
   * ```ts
   * for await (const page of onair.followChanges(since)) {
   *   apply(page.changes);
   *   since = page.next;
   * }
   * ```
   */
  async *followChanges(
    since: number,
    options: ChangesOptions = {},
  ): AsyncGenerator<ChangesResponse, void, undefined> {
    for (let from = since; ;) {
      const page = await this.changes(from, options);
      yield page;
      if (!page.hasMore) return;
      from = page.next;
    }
  }

  async #get<T>(path: string, options: CallOptions): Promise<T> {
    const url = `${this.baseUrl}/api/v1${path}`;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.#attempt(url, options.signal)) as T;
      } catch (error) {
        if (!(error instanceof OnairError) || attempt >= this.#retry.retries) throw error;
        const delayMs = this.#retryDelay(error, attempt);
        if (delayMs === null) throw error;
        this.#retry.onRetry({ attempt: attempt + 1, delayMs, error });
        await sleep(delayMs, options.signal);
      }
    }
  }

  /** How long to wait before retrying after `error`, or null when it is not worth retrying. */
  #retryDelay(error: OnairError, attempt: number): number | null {
    let delayMs: number;
    const told = error.retryAfterSeconds !== null;
    if (error.status === 429 || error.status === 503) {
      // Retry-After is what the server knows; without it, back off.
      delayMs = told ? (error.retryAfterSeconds ?? 0) * 1000 : 500 * 2 ** attempt;
    } else if (error.code === 'NETWORK_ERROR') {
      delayMs = 250 * 2 ** attempt;
    } else {
      return null;
    }
    if (delayMs > this.#retry.maxDelayMs) return null;
    if (!this.#retry.jitter) return delayMs;
    // Retry-After names the start of a one-second window: spread over that window, never past
    // maxDelayMs. A back-off is taken between its half and its whole ("equal jitter").
    const spread = told ? delayMs + Math.random() * 1000 : delayMs * (0.5 + Math.random() / 2);
    return Math.round(Math.min(spread, this.#retry.maxDelayMs));
  }

  async #attempt(url: string, signal: AbortSignal | undefined): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    let response: Response;
    let text: string;
    // The body is read under the same rules as the headers: a stalled or cut answer is a
    // TIMEOUT or a NETWORK_ERROR (retried as one), never a bare fetch error.
    let answering = false;
    try {
      response = await this.#fetch(url, { headers: this.#headers, signal: combined });
      answering = true;
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new OnairError(
          `No ${answering ? 'complete answer' : 'answer'} from ${url} within ${this.#timeoutMs} ms`,
          0,
          'TIMEOUT',
          null,
          { cause: error },
        );
      }
      throw new OnairError(
        answering ? `The answer from ${url} was cut short` : `Cannot reach ${url}`,
        0,
        'NETWORK_ERROR',
        null,
        { cause: error },
      );
    }
    let body: unknown = undefined;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: reported below.
    }
    this.#rateLimit = rateLimitOf(response.headers.get('ratelimit'), Date.now()) ?? this.#rateLimit;
    if (response.ok && body !== undefined) return body;
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
    const apiError = body as { error?: unknown; code?: unknown } | undefined;
    if (typeof apiError?.error === 'string' && typeof apiError.code === 'string') {
      throw new OnairError(apiError.error, response.status, apiError.code, retryAfter);
    }
    throw new OnairError(
      `Unexpected answer from ${url}: HTTP ${response.status}, ${text.slice(0, 200)}`,
      response.status,
      'UNEXPECTED_RESPONSE',
      retryAfter,
    );
  }
}
