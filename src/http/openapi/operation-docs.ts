import { errors, type AppError, type ErrorCode } from '../../domain/errors.js';
import { DEFAULT_RATE_LIMIT } from '../../domain/rate-window.js';

/**
 * The prose of the API reference: what each v1 operation is for, which error codes it can
 * answer besides the ones every keyed route shares, and an example answer. Shapes, parameters
 * and statuses come from the route schemas themselves (see openapi-document.ts); this file only
 * adds words and examples, and the tests check both against real answers.
 */

/** Error codes a customer of the v1 API can meet (the others belong to the account pages). */
export type ApiErrorCode = Exclude<
  ErrorCode,
  'CROSS_SITE_REQUEST' | 'KEY_LIMIT_REACHED' | 'PAYLOAD_TOO_LARGE'
>;

/**
 * What each code means, and a real error of that code (its message is the one clients get).
 * A Record over every API code, so a new code in the catalogue cannot go undocumented.
 */
export const API_ERRORS: Record<ApiErrorCode, { meaning: string; example: AppError }> = {
  UNAUTHORIZED: {
    meaning: 'The API key is missing, malformed, unknown or revoked.',
    example: errors.unauthorized(),
  },
  EMAIL_NOT_VERIFIED: {
    meaning: "The account's e-mail address is not verified yet.",
    example: errors.emailNotVerified(),
  },
  ACCESS_EXPIRED: {
    meaning: 'The trial and any paid access period have ended.',
    example: errors.accessExpired(),
  },
  ACCOUNT_DISABLED: {
    meaning: 'The operator has disabled the account.',
    example: errors.accountDisabled(),
  },
  RATE_LIMITED: {
    meaning:
      'Too many requests in the current one-second window of the account (or, without a valid key, from this client address). Retry after `Retry-After` seconds.',
    example: errors.rateLimited(1),
  },
  INVALID_COUNTRY: {
    meaning:
      'The country code has characters other than letters, digits and hyphens, or is longer than 16.',
    example: errors.invalidCountry(),
  },
  INVALID_DAYS: {
    meaning: '`days` is not an integer from 1 to 365, `today`, `tomorrow`, `yesterday` or `all`.',
    example: errors.invalidDays(),
  },
  INVALID_PARAMETERS: {
    meaning:
      '`days` and `all` given together, an `all` value other than `1` or `true`, a parameter given more than once, or a parameter of the guide, now/next or programme search out of its rules (the message names it).',
    example: errors.invalidParameters('Use either days or all, not both'),
  },
  BAD_REQUEST: {
    meaning:
      'The path is not validly percent-encoded (checked before the key), or the request is not valid HTTP.',
    example: errors.badRequest('Malformed request: the URL is not validly percent-encoded'),
  },
  CHANNEL_NOT_FOUND: {
    meaning: 'No channel has this id.',
    example: errors.channelNotFound(),
  },
  PROGRAMME_NOT_FOUND: {
    meaning: 'The channel exists but has no programme with this id.',
    example: errors.programmeNotFound(),
  },
  CURSOR_EXPIRED: {
    meaning:
      'The `since` of a changes request is older than the records kept (or from a catalogue made anew): read the catalogue again, then follow the changes from now.',
    example: errors.cursorExpired(
      'Records after 12 were pruned (the log keeps those after 4051): read the catalogue again, then follow the changes from now (leave since out)',
    ),
  },
  NOT_FOUND: {
    meaning: 'No route has this path (asked with a valid key; without one the answer is 401).',
    example: errors.notFound(),
  },
  METHOD_NOT_ALLOWED: {
    meaning: 'The path exists but only answers GET and HEAD.',
    example: errors.methodNotAllowed(),
  },
  REQUEST_TIMEOUT: {
    meaning: 'The request was not received in time.',
    example: errors.requestTimeout(),
  },
  HEADERS_TOO_LARGE: {
    meaning: 'The URL and headers together are over 16 KB (a very long query string, say).',
    example: errors.headersTooLarge(),
  },
  SERVICE_UNAVAILABLE: {
    meaning:
      'The service cannot reach its storage for a moment. Retry after `Retry-After` seconds.',
    example: errors.serviceUnavailable('The service cannot reach its database; try again shortly'),
  },
  INTERNAL_ERROR: {
    meaning: 'Something failed on the server; the answer has no details.',
    example: errors.internal(),
  },
};

/** The error statuses and codes every keyed v1 route can answer, checked in this order. */
export const GUARD_ERRORS: Readonly<Record<number, readonly ApiErrorCode[]>> = {
  401: ['UNAUTHORIZED'],
  403: ['EMAIL_NOT_VERIFIED', 'ACCESS_EXPIRED', 'ACCOUNT_DISABLED'],
  429: ['RATE_LIMITED'],
  500: ['INTERNAL_ERROR'],
  503: ['SERVICE_UNAVAILABLE'],
};

/**
 * What the reference says of parameters beyond their route schema, by name. The routes take these
 * as any string and answer their own 400 or 404 with the contract's code and message (a schema
 * check would answer another), so these forms and closed sets are documented, not enforced by
 * the schema; the tests send every value listed and see it accepted.
 */
export const PARAMETER_DOCS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  channelId: { format: 'uuid' },
  days: {
    anyOf: [
      { type: 'string', pattern: '^[0-9]+$' },
      { type: 'string', enum: ['today', 'tomorrow', 'yesterday', 'all'] },
    ],
  },
  all: { enum: ['1', 'true'] },
};

/** The statuses a route answers by itself (parameters, existence, a cursor too old). */
export type RouteErrorStatus = 400 | 404 | 410;

/** The documentation of one v1 operation. */
export interface OperationDoc {
  operationId: string;
  tag: 'Catalogue' | 'Schedules' | 'Changes';
  description: string;
  /** Codes of the route's own 400, 404 and 410 answers. */
  routeErrors: Readonly<Partial<Record<RouteErrorStatus, readonly ApiErrorCode[]>>>;
  /**
   * A real error of this route where API_ERRORS' example is another route's (its parameters, its
   * path): the reference shows each route an error it can answer (the tests provoke it).
   */
  errorExamples?: Readonly<Partial<Record<ApiErrorCode, AppError>>>;
  /** A 200 body, valid against the route's response schema (the tests check). */
  example: unknown;
}

/** The example error of `code` the reference shows for the operation. */
export function errorExampleOf(doc: OperationDoc, code: ApiErrorCode): AppError {
  return doc.errorExamples?.[code] ?? API_ERRORS[code].example;
}

/** What a query parameter given twice is told (http/error-handler.ts). */
const givenTwice = (name: string): AppError =>
  errors.invalidParameters(`Parameter ${name} is given more than once`);

/** Both selections of the guide and now/next at once (domain/guide.ts). */
const BOTH_SELECTIONS = errors.invalidParameters(
  'Use either country or channels, not both: country=CC for a country, channels=ID,ID,… for up to 100 channels',
);

const ONAIR_NEWS = 'dd41cb78-ddbb-5222-af7d-7173a2d56458';

/**
 * The demo guide's richest show, as the detail route answers it; the guide and now/next examples
 * show it too, so the examples agree with one another.
 */
const GARDEN_RESCUE = {
  id: '1298405571003348172',
  start: '20260822080000 +0000',
  stop: '20260822090000 +0000',
  title: 'Garden Rescue',
  desc: 'A tired garden gets a second life.',
  category: 'Lifestyle',
  sourceFileId: '0b9f6a2e-41c4-4f0e-9d7a-3f8e2c1d5b6a',
  needsReview: false,
  updatedAt: '1787378400000',
  channelId: ONAIR_NEWS,
  subTitle: 'The Orchard',
  titles: [{ value: 'Garden Rescue', lang: 'en' }],
  subTitles: [{ value: 'The Orchard', lang: 'en' }],
  descs: [{ value: 'A tired garden gets a second life.', lang: 'en' }],
  episodeNumber: {
    season: 3,
    episode: 5,
    part: null,
    seasons: null,
    episodes: 13,
    parts: null,
    onScreen: 'S3 E5',
  },
  episodeIds: [
    { system: 'xmltv_ns', value: '2.4/13.' },
    { system: 'onscreen', value: 'S3 E5' },
  ],
  categories: ['Lifestyle'],
  keywords: ['gardening'],
  images: ['https://img.example/garden-rescue.jpg'],
  urls: ['https://example.com/garden-rescue'],
  credits: [
    { role: 'presenter', name: 'Ada Moss', character: '' },
    { role: 'guest', name: 'Ben Thorn', character: '' },
  ],
  date: '2025',
  productionCountries: ['UK'],
  language: 'en',
  originalLanguage: '',
  lengthSeconds: 3600,
  ratings: [{ system: 'BBFC', value: 'U' }],
  starRatings: [{ system: '', value: '4/5' }],
  isNew: true,
  premiere: false,
  lastChance: false,
  previouslyShown: null,
  video: { colour: true, aspect: '16:9', quality: 'HDTV' },
  audio: { stereo: 'stereo' },
  subtitles: [{ type: 'teletext', language: 'en' }],
};

/** The show after it on the same channel, with less rich data (lists empty, structures null). */
const QUIZ_HOUR = {
  id: '8093757922743478732',
  start: '20260822090000 +0000',
  stop: '20260822100000 +0000',
  title: 'The Quiz Hour',
  desc: 'Four contestants, one trophy.',
  category: 'Game show',
  sourceFileId: '0b9f6a2e-41c4-4f0e-9d7a-3f8e2c1d5b6a',
  needsReview: false,
  updatedAt: '1787378400000',
  channelId: ONAIR_NEWS,
  subTitle: '',
  titles: [{ value: 'The Quiz Hour', lang: '' }],
  subTitles: [],
  descs: [{ value: 'Four contestants, one trophy.', lang: '' }],
  episodeNumber: {
    season: 7,
    episode: 12,
    part: null,
    seasons: null,
    episodes: 20,
    parts: null,
    onScreen: 'S7 E12',
  },
  episodeIds: [
    { system: 'xmltv_ns', value: '6.11/20.' },
    { system: 'onscreen', value: 'S7 E12' },
  ],
  categories: ['Game show'],
  keywords: [],
  images: ['https://img.example/quiz-hour.jpg'],
  urls: ['https://example.com/quiz-hour'],
  credits: [{ role: 'presenter', name: 'Cleo Fairweather', character: '' }],
  date: '',
  productionCountries: [],
  language: '',
  originalLanguage: '',
  lengthSeconds: null,
  ratings: [],
  starRatings: [],
  isNew: true,
  premiere: false,
  lastChance: false,
  previouslyShown: null,
  video: null,
  audio: { stereo: 'stereo' },
  subtitles: [],
};

/** What a channel list says of the example channel, as the guide and now/next repeat it. */
const ONAIR_NEWS_CHANNEL = {
  channelId: ONAIR_NEWS,
  name: 'Onair News',
  icon: '',
  country: 'UK',
  needsReview: false,
};

/** How the guide and now/next choose their channels and page them (both routes, same words). */
const SELECTION_RULES = [
  '**Channels**: exactly one of',
  '',
  '- `country=CC`: every channel of the country, in the order of its channel list (`/countries/{country}/channels`), paged by `limit` (1-500 channels, default 500) and `offset` (default 0); `next` is the `offset` of the next page, or `null` on the last. An unknown valid code gives 200 with no channels, as the channel list does.',
  '- `channels=ID,ID,…`: 1-100 channel ids (UUIDs, any case), comma-separated, answered in the order given, each once; ids no channel has are listed in `missing` (in the order given). `limit` and `offset` are refused with it; `next` is `null`.',
  '',
  'Both or neither, a `channels` entry that is not a UUID, more than 100 distinct ids, or another parameter out of its range or form give 400 `INVALID_PARAMETERS`, with a message naming the parameter; a malformed country code gives 400 `INVALID_COUNTRY`.',
];

/** The instant forms `from` and `at` take. */
const INSTANT_RULE =
  '`now` (the default: the time of the request, in whole seconds) or an instant, as the XMLTV `YYYYMMDDHHMMSS +HHMM` or ISO 8601 with `Z` or an offset (`2026-08-22T18:30:00+02:00`; a fraction of a second is dropped). A time without an offset is refused; send `+` as `%2B`.';

/** How the two answers are kept, and what they cost. */
const GRID_CACHING =
  '**Cost and caching**: one request against the rate limit, however many channels. Answers for the same parameters are kept per catalogue version like every v1 answer; at `now` the answer moves with the clock, so its programmes are read once per programme boundary (when one shown ends or the next one begins) and only the instant in it changes between (so does its `ETag`, each second). Times are UTC (`YYYYMMDDHHMMSS +0000`); each programme is a full entry, as `/channels/{channelId}/programmes/{programmeId}` answers it.';

/** Every v1 GET route by its path; a route missing here fails the document's generation. */
export const V1_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  '/api/v1/countries': {
    operationId: 'listCountries',
    tag: 'Catalogue',
    description: 'Every country of the catalogue with its number of channels, ordered by code.',
    routeErrors: {},
    example: {
      countries: [
        { country: 'DE', channelCount: 2 },
        { country: 'FR', channelCount: 2 },
        { country: 'UK', channelCount: 3 },
      ],
    },
  },
  '/api/v1/countries/{country}/channels': {
    operationId: 'listChannels',
    tag: 'Catalogue',
    description:
      "A country's channels, ordered by name (case-insensitive), then id. The code matches in any case; the answer uses the stored (upper-case) form. A valid code without channels gives an empty list.",
    routeErrors: { 400: ['INVALID_COUNTRY', 'BAD_REQUEST'] },
    example: {
      country: 'UK',
      channels: [
        {
          id: '9a2a919e-4582-5cb5-8dcd-8c763f229632',
          name: 'Kelpie Kids',
          icon: '',
          needsReview: false,
          country: 'UK',
        },
        { id: ONAIR_NEWS, name: 'Onair News', icon: '', needsReview: false, country: 'UK' },
      ],
    },
  },
  '/api/v1/channels/search': {
    operationId: 'searchChannels',
    tag: 'Catalogue',
    description:
      'Channels whose name contains `q`, ignoring case and accents ("tele" finds "Télé"), optionally in one country. At most 200, ordered by name (case-insensitive), then id. A blank or missing `q` gives no results (200).',
    routeErrors: { 400: ['INVALID_COUNTRY', 'INVALID_PARAMETERS'] },
    errorExamples: { INVALID_PARAMETERS: givenTwice('q') },
    example: {
      results: [
        {
          channelId: ONAIR_NEWS,
          name: 'Onair News',
          icon: '',
          country: 'UK',
          needsReview: false,
        },
      ],
    },
  },
  '/api/v1/channels/{channelId}/programmes': {
    operationId: 'listProgrammes',
    tag: 'Schedules',
    description: [
      "A channel's schedule, ordered by start.",
      '',
      '| Request | Programmes |',
      '| --- | --- |',
      '| no `days`, or `days=N` (1-365) | starting at or after now minus N days (default 7), every future one included |',
      '| `days=today`, `tomorrow`, `yesterday` | starting on that UTC calendar day |',
      '| `days=all`, `all=1`, `all=true` | all, also those whose start does not parse (last) |',
      '',
      'Times are XMLTV datetimes in UTC (`YYYYMMDDHHMMSS +0000`). A channel id that is not a UUID, or that no channel has, gives 404.',
    ].join('\n'),
    routeErrors: {
      400: ['INVALID_DAYS', 'INVALID_PARAMETERS', 'BAD_REQUEST'],
      404: ['CHANNEL_NOT_FOUND'],
    },
    example: {
      channelId: ONAIR_NEWS,
      programmes: [
        {
          id: '4639514307291785513',
          start: '20260822060000 +0000',
          stop: '20260822080000 +0000',
          title: 'Morning Edition',
          desc: 'News, weather and travel.',
          category: 'News',
          sourceFileId: '0b9f6a2e-41c4-4f0e-9d7a-3f8e2c1d5b6a',
          needsReview: false,
          updatedAt: '1787378400000',
        },
        {
          id: '1298405571003348172',
          start: '20260822080000 +0000',
          stop: '20260822090000 +0000',
          title: 'Garden Rescue',
          desc: 'A tired garden gets a second life.',
          category: 'Lifestyle',
          sourceFileId: '0b9f6a2e-41c4-4f0e-9d7a-3f8e2c1d5b6a',
          needsReview: false,
          updatedAt: '1787378400000',
        },
      ],
    },
  },
  '/api/v1/channels/{channelId}/programmes/{programmeId}': {
    operationId: 'getProgramme',
    tag: 'Schedules',
    description: [
      "One programme of a channel's schedule with everything its guide says of it: the schedule entry's fields, unchanged, then the channel id and the rich data of the XMLTV `<programme>` (episode numbering, sub-titles, images, credits, ratings, flags, video and audio, subtitles).",
      '',
      'A text the guide leaves out is empty (`""`), a structure it leaves out `null`, a list empty. `episodeNumber` counts from 1 (the guide\'s `xmltv_ns` numbering counts from 0): `"2.4/13.0/1"` is season 3, episode 5 of 13, part 1 of 1. `lengthSeconds` is `<length>` in seconds whatever its units. Times, also `previouslyShown.start`, are UTC (`YYYYMMDDHHMMSS +0000`).',
      '',
      "The `id` comes from the schedule (`/channels/{channelId}/programmes`); a programme keeps it while its channel and start stay. An unknown channel gives 404 `CHANNEL_NOT_FOUND`; an id that is not one of the channel's programmes (whatever its form) gives 404 `PROGRAMME_NOT_FOUND`.",
    ].join('\n'),
    routeErrors: { 400: ['BAD_REQUEST'], 404: ['CHANNEL_NOT_FOUND', 'PROGRAMME_NOT_FOUND'] },
    example: { programme: GARDEN_RESCUE },
  },
  '/api/v1/guide': {
    operationId: 'getGuide',
    tag: 'Schedules',
    description: [
      'The programmes of many channels in a window, in one request: a TV guide grid.',
      '',
      ...SELECTION_RULES,
      '',
      `**Window**: \`from\` is ${INSTANT_RULE} \`hours\` is 1-48 (default 3). The window is [\`from\`, \`from\` + \`hours\`), given back as \`from\` and \`to\`.`,
      '',
      '**Programmes** of a channel: those starting before `to` and stopping after `from` (so the one running at `from` is in, one ending exactly at `from` is not), ordered by start, then id. Programmes whose start or stop does not parse are left out; one the guide gave no stop ends where the next programme of its channel in the same guide starts (its `stop` stays empty).',
      '',
      GRID_CACHING,
    ].join('\n'),
    routeErrors: { 400: ['INVALID_PARAMETERS', 'INVALID_COUNTRY', 'BAD_REQUEST'] },
    errorExamples: {
      INVALID_PARAMETERS: BOTH_SELECTIONS,
    },
    // channels=ONAIR_NEWS,6a3c1e9f-0000-5000-8000-000000000000&from=20260822083000 %2B0000&hours=1
    example: {
      from: '20260822083000 +0000',
      to: '20260822093000 +0000',
      channels: [{ ...ONAIR_NEWS_CHANNEL, programmes: [GARDEN_RESCUE, QUIZ_HOUR] }],
      missing: ['6a3c1e9f-0000-5000-8000-000000000000'],
      next: null,
    },
  },
  '/api/v1/now': {
    operationId: 'getNowNext',
    tag: 'Schedules',
    description: [
      'What is on now and what comes next on many channels, in one request.',
      '',
      ...SELECTION_RULES,
      '',
      `**Instant**: \`at\` is ${INSTANT_RULE}`,
      '',
      '**Now and next** of a channel: `now` is the programme running at `at` (start ≤ `at` < stop; of overlapping ones the latest start), `next` the first that starts after `at`; either is `null` when there is none. Programmes whose start or stop does not parse never count; one the guide gave no stop runs until the next programme of its channel in the same guide starts.',
      '',
      GRID_CACHING,
    ].join('\n'),
    routeErrors: { 400: ['INVALID_PARAMETERS', 'INVALID_COUNTRY', 'BAD_REQUEST'] },
    errorExamples: {
      INVALID_PARAMETERS: BOTH_SELECTIONS,
    },
    // country=UK&limit=1&offset=1&at=2026-08-22T08:30:00Z: the second of the three UK channels.
    example: {
      at: '20260822083000 +0000',
      channels: [{ ...ONAIR_NEWS_CHANNEL, now: GARDEN_RESCUE, next: QUIZ_HOUR }],
      missing: [],
      next: 2,
    },
  },
  '/api/v1/programmes/search': {
    operationId: 'searchProgrammes',
    tag: 'Schedules',
    description: [
      'Programmes by their words, across every channel and country: "when is it on?".',
      '',
      '**Words**: `q` is trimmed and cut to 200 characters; a programme matches when every word of it is a word of the programme\'s titles, sub-titles, descriptions, categories or credits\' names, ignoring case and accents (`tele` finds "Télé", `ETE` finds "été", `lodz` finds "Łódź", `strasse` finds "Straße"), and the last word also matches the start of a word (`star tre` finds "Star Trek"). Words are runs of letters and digits: punctuation separates them. A blank or missing `q` answers no results.',
      '',
      `**Filters**: \`country\` (one country), \`channels\` (1-100 channel ids, comma-separated), and the window: a programme is in when its start is in [\`from\`, \`to\`). \`from\` is ${INSTANT_RULE} \`to\` is an instant in the same forms, by default 14 days after \`from\`, at most 31 days after it; a fraction of a second counts (the window is exact).`,
      '',
      '**Order and pages**: by start, then channel name (case-insensitive), then programme id. `limit` is 1-200 (default 50). `next` is the `cursor` of the next page, or `null` on the last; send it back with the same other parameters (another query refuses it: 400 `INVALID_PARAMETERS`).',
      '',
      '**Cost and caching**: one request against the rate limit. Answers for the same parameters are kept per catalogue version; from `now`, an answer is kept until its first result starts. Each `programme` is a full entry, as `/channels/{channelId}/programmes/{programmeId}` answers it.',
    ].join('\n'),
    routeErrors: { 400: ['INVALID_PARAMETERS', 'INVALID_COUNTRY', 'BAD_REQUEST'] },
    errorExamples: {
      INVALID_PARAMETERS: givenTwice('q'),
    },
    // q=garden&from=2026-08-22T08:00:00Z&limit=1
    example: {
      results: [{ channel: ONAIR_NEWS_CHANNEL, programme: GARDEN_RESCUE }],
      next: 'WzEsImFkMTE1OGU5OWI3MDgzMzciLDE3ODczODU2MDAwMDAsIm9uYWlyIG5ld3MiLCIxMjk4NDA1NTcxMDAzMzQ4MTcyIl0',
    },
  },
  '/api/v1/changes': {
    operationId: 'listChanges',
    tag: 'Changes',
    description: [
      'What the ingests changed, record by record, for apps that keep a copy of schedules: one record per programme added, changed (any field, rich data included) or removed (also by retention), and per channel added or changed (by a guide or by the operator). An ingest that changes nothing writes none.',
      '',
      '**Following**: start without `since`: the answer is empty and its `next` is the newest record now. Later, send `next` back as `since` and get the records after it, in `seq` order (the order in which ingests committed); while `hasMore` is true, ask again at once. Filters: `country` (the channels of that country now), `channels` (1-100 ids), or both (the listed channels of that country); `limit` 1-1000 (default 500).',
      '',
      '**Gone**: records are kept `CHANGES_RETENTION_DAYS` (30 by default). A `since` older than that (or from a catalogue made anew) is answered 410 `CURSOR_EXPIRED`: read what you keep again, then follow from now.',
      '',
      '**Cost and caching**: one request against the rate limit. Answers are kept per catalogue version, with an `ETag`.',
    ].join('\n'),
    routeErrors: {
      400: ['INVALID_PARAMETERS', 'INVALID_COUNTRY', 'BAD_REQUEST'],
      410: ['CURSOR_EXPIRED'],
    },
    errorExamples: {
      INVALID_PARAMETERS: errors.invalidParameters(
        'Invalid since: send the `next` of the previous answer (a whole number), or leave it out to start from now',
      ),
    },
    // since=1024&limit=2
    example: {
      changes: [
        {
          seq: 1025,
          kind: 'programme',
          change: 'changed',
          channelId: ONAIR_NEWS,
          programmeId: GARDEN_RESCUE.id,
          start: GARDEN_RESCUE.start,
          at: '20260822061500 +0000',
        },
        {
          seq: 1026,
          kind: 'channel',
          change: 'changed',
          channelId: ONAIR_NEWS,
          at: '20260822061500 +0000',
        },
      ],
      next: 1026,
      hasMore: true,
    },
  },
};

/** The reference's introduction (CommonMark): keys, limits, errors, caching. */
/** The documentation of a feed route: keyless, its token in the path. */
export interface FeedOperationDoc {
  operationId: string;
  description: string;
  /** The 200 body's media type. */
  mediaType: 'application/xml' | 'application/gzip';
}

const FEED_RULES =
  "The token in the path is the only credential (media servers cannot send a key header): make a feed on the account page or with `onair feeds create`, and its URL is shown once. Checks, in order: token (404 for an unknown, replaced or deleted one, all alike) → the account's access (403, as the v1 API) → the feed's own budget, apart from the API's (default 60 fetches per hour, 429 with `Retry-After`). The document: every channel of the lineup in its order (`<channel id>` is the guide's XMLTV id, with `display-name` and `icon`), then each channel's programmes starting in [start of today (UTC) − daysBack, now + daysAhead), by start, with every rich element kept at ingest, in the XMLTV DTD's order, times in `+0000`. `ETag` and `Last-Modified` name the document; `If-None-Match` gives 304 while it is unchanged.";

export const FEED_OPERATIONS: Readonly<Record<string, FeedOperationDoc>> = {
  '/feeds/{token}/guide.xml': {
    operationId: 'getGuideFeed',
    mediaType: 'application/xml',
    description: `The XMLTV guide of a feed, gzip-compressed when \`Accept-Encoding\` allows. ${FEED_RULES}`,
  },
  '/feeds/{token}/guide.xml.gz': {
    operationId: 'getGuideFeedGz',
    mediaType: 'application/gzip',
    description: `The same XMLTV guide as a gzip file, for media servers that take \`.xml.gz\`. ${FEED_RULES}`,
  },
};

/** The error statuses and codes of the feed routes, with examples as they answer them. */
export const FEED_ERRORS: Readonly<Record<number, readonly AppError[]>> = {
  403: [errors.emailNotVerified(), errors.accessExpired(), errors.accountDisabled()],
  404: [errors.notFound()],
  429: [errors.feedRateLimited(60)],
  500: [errors.internal()],
  503: [errors.serviceUnavailable()],
};

export function apiIntroduction(): string {
  const codes = (Object.keys(API_ERRORS) as ApiErrorCode[])
    .sort((a, b) => API_ERRORS[a].example.status - API_ERRORS[b].example.status)
    .map(
      (code) =>
        `| ${API_ERRORS[code].example.status} | \`${code}\` | ${API_ERRORS[code].meaning} |`,
    )
    .join('\n');
  return [
    'Countries, channels and TV programme schedules as JSON. Every route is a GET under `/api/v1` and needs an API key: create one on your account page after signing in with your e-mail address (a new address gets a 7-day trial).',
    '',
    '**Authentication.** Send the key as `Authorization: Bearer <key>` or as `X-API-Key: <key>` (the same key; sending both with different values is refused). A key in the query string is ignored.',
    '',
    '**Checks, in order:** key (401) → access (403) → rate limit (429) → parameters (400) → existence (404). A path that is not validly percent-encoded is refused first (400 `BAD_REQUEST`).',
    '',
    `**Rate limit.** ${DEFAULT_RATE_LIMIT} requests per second per account (all its keys together), in fixed one-second windows; every authenticated request counts. Over the limit the answer is 429 with \`Retry-After\` (seconds). Answers carry \`RateLimit-Policy\` and \`RateLimit\` headers.`,
    '',
    '**Caching.** Every answer has an `ETag`; send it back in `If-None-Match` to get `304 Not Modified` while nothing changed. Bodies of 1 KB or more are compressed (brotli or gzip) when `Accept-Encoding` allows.',
    '',
    '**Deployments.** Another deployment of this service serves the same routes with the same keys under its own base URL: only the server address changes.',
    '',
    '**Errors** are JSON, always `{"error": "<message>", "code": "<CODE>"}`:',
    '',
    '| Status | Code | Meaning |',
    '| --- | --- | --- |',
    codes,
  ].join('\n');
}
