import { Type, type Static } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.js';
import { CREDIT_ROLES } from '../domain/programme-details.js';

/**
 * The customer contract as schemas. Responses are serialised through these, so a field that is
 * not here never reaches a client.
 *
 * A schema with a `title` is a named shape of the contract: the OpenAPI document declares it once
 * in `components.schemas` under that title and refers to it with `$ref` wherever it appears
 * (openapi/named-schemas.ts). A title is only a name: validation and serialisation ignore it.
 */

/**
 * A closed set of strings, as `enum` with its `type`: generators make a union of the literals
 * (an `enum` alone leaves them guessing the type).
 */
function stringEnum<T extends string>(
  values: readonly T[],
  options: { description?: string } = {},
) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/** Every code of the error catalogue (domain/errors.ts), in its order. */
const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: stringEnum(ERROR_CODES, {
      description:
        'Stable machine-readable identifier. `CROSS_SITE_REQUEST`, `KEY_LIMIT_REACHED` and `PAYLOAD_TOO_LARGE` name refusals of the account pages, which answer them with an HTML page and the same status, never with this body',
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

const countryCode = Type.String({
  description: 'Country code: letters, digits and hyphens, at most 16 characters',
  examples: ['UK'],
});
const uuid = Type.String({ format: 'uuid' });
const xmltvUtc = Type.String({
  description: 'XMLTV datetime in UTC, `YYYYMMDDHHMMSS +0000`',
  examples: ['20260822120000 +0000'],
});

export const CountryEntry = Type.Object(
  {
    country: countryCode,
    channelCount: Type.Integer({ minimum: 0 }),
  },
  { title: 'Country' },
);

export const ChannelEntry = Type.Object(
  {
    id: uuid,
    name: Type.String(),
    icon: Type.String({ description: 'Icon URL; can be empty' }),
    needsReview: Type.Boolean(),
    country: countryCode,
  },
  { title: 'Channel' },
);

/** A channel as a search, the guide and now/next name it: by `channelId`. */
const channelSummaryFields = {
  channelId: uuid,
  name: Type.String(),
  icon: Type.String({ description: 'Icon URL; can be empty' }),
  country: countryCode,
  needsReview: Type.Boolean(),
};
export const SearchResultEntry = Type.Object(channelSummaryFields, { title: 'ChannelSummary' });

export const ProgrammeEntry = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9]+$' }),
    start: Type.String({
      description:
        'XMLTV datetime in UTC, `YYYYMMDDHHMMSS +0000`; as the guide wrote it when it did not parse (then `needsReview` is true)',
      examples: ['20260822120000 +0000'],
    }),
    stop: Type.String({
      description: 'As `start`; `""` when the guide gave no stop (XMLTV\'s stop is optional)',
      examples: ['20260822130000 +0000'],
    }),
    title: Type.String(),
    desc: Type.String(),
    category: Type.String({ description: 'Categories separated by ", "' }),
    sourceFileId: uuid,
    needsReview: Type.Boolean(),
    updatedAt: Type.String({
      pattern: '^[0-9]+$',
      description: 'When the programme last changed',
    }),
  },
  { title: 'Programme' },
);

const langText = Type.Object(
  {
    value: Type.String(),
    lang: Type.String({ description: 'The `lang` attribute; empty when absent' }),
  },
  { title: 'LangText' },
);
/** An episode number or a rating: the guide's `system` attribute and its text. */
const systemValue = Type.Object(
  {
    system: Type.String({ description: 'The `system` attribute; empty when absent' }),
    value: Type.String({ description: 'As given, e.g. `2.4/13.`, `PG` or `3/4`' }),
  },
  { title: 'SystemValue' },
);
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableCount = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

/**
 * A programme with everything its guide says of it (the XMLTV `<programme>` children): the v1
 * entry's fields, unchanged, then the channel and the rich data. Texts are trimmed; a text the
 * guide leaves out is empty, a structure it leaves out null, a list empty.
 */
export const RichProgrammeEntry = Type.Object(
  {
    ...ProgrammeEntry.properties,
    channelId: uuid,
    subTitle: Type.String({ description: 'The first `<sub-title>`; empty when none' }),
    titles: Type.Array(langText, { description: 'Every `<title>`, in guide order' }),
    subTitles: Type.Array(langText, { description: 'Every `<sub-title>`' }),
    descs: Type.Array(langText, { description: 'Every `<desc>`' }),
    episodeNumber: Type.Union(
      [
        Type.Object(
          {
            season: nullableCount('Season, from 1 (`xmltv_ns` counts from 0)'),
            episode: nullableCount('Episode within the season, from 1'),
            part: nullableCount('Part within the episode, from 1'),
            seasons: nullableCount('Seasons in all'),
            episodes: nullableCount('Episodes in the season'),
            parts: nullableCount('Parts of the episode'),
            onScreen: Type.Union([Type.String(), Type.Null()], {
              description: 'The `system="onscreen"` text, as shown to viewers',
            }),
          },
          { title: 'EpisodeNumber' },
        ),
        Type.Null(),
      ],
      {
        description:
          'From the first `system="xmltv_ns"` `<episode-num>`; null when the programme has no `<episode-num>`',
      },
    ),
    episodeIds: Type.Array(systemValue, {
      description:
        'Every `<episode-num>`, e.g. `{ "system": "dd_progid", "value": "EP01234567.0012" }`',
    }),
    categories: Type.Array(Type.String(), { description: 'Every `<category>`' }),
    keywords: Type.Array(Type.String(), { description: 'Every `<keyword>`' }),
    images: Type.Array(Type.String(), {
      description: 'Every `<icon>` `src` and `<image>` URL, in guide order',
    }),
    urls: Type.Array(Type.String(), { description: 'Every `<url>`' }),
    credits: Type.Array(
      Type.Object(
        {
          role: stringEnum(CREDIT_ROLES),
          name: Type.String(),
          character: Type.String({ description: 'The part an actor plays; empty otherwise' }),
        },
        { title: 'Credit' },
      ),
      { description: 'Every person of `<credits>`, in guide order' },
    ),
    date: Type.String({
      description: 'The `<date>` as given (e.g. the year made); empty when none',
    }),
    productionCountries: Type.Array(Type.String(), { description: 'Every `<country>`' }),
    language: Type.String({ description: 'The `<language>`; empty when none' }),
    originalLanguage: Type.String({ description: 'The `<orig-language>`; empty when none' }),
    lengthSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: '`<length>` in seconds, whatever its units; null when none or unreadable',
    }),
    ratings: Type.Array(systemValue, { description: 'Every `<rating>`, e.g. `PG`' }),
    starRatings: Type.Array(systemValue, {
      description: 'Every `<star-rating>`, e.g. `3/4`',
    }),
    isNew: Type.Boolean({ description: '`<new>`: first showing anywhere' }),
    premiere: Type.Boolean({ description: '`<premiere>`' }),
    lastChance: Type.Boolean({ description: '`<last-chance>`' }),
    previouslyShown: Type.Union(
      [
        Type.Object(
          {
            start: Type.String({
              description:
                'When, in the form of every time here; empty when the guide does not say',
            }),
            channel: Type.String({ description: 'The XMLTV channel id; empty when not given' }),
          },
          { title: 'PreviouslyShown' },
        ),
        Type.Null(),
      ],
      { description: '`<previously-shown>`; null when absent' },
    ),
    video: Type.Union(
      [
        Type.Object(
          {
            colour: Type.Union([Type.Boolean(), Type.Null()]),
            aspect: nullableString,
            quality: nullableString,
          },
          { title: 'Video' },
        ),
        Type.Null(),
      ],
      { description: '`<video>`; null when absent, each part null when the guide leaves it out' },
    ),
    audio: Type.Union([Type.Object({ stereo: nullableString }, { title: 'Audio' }), Type.Null()], {
      description: '`<audio>`; null when absent',
    }),
    subtitles: Type.Array(
      Type.Object(
        {
          type: Type.String({
            description: '`teletext`, `onscreen` or `deaf-signed`; may be empty',
          }),
          language: Type.String(),
        },
        { title: 'Subtitles' },
      ),
      { description: 'Every `<subtitles>`' },
    ),
  },
  { title: 'RichProgramme' },
);

export const CountriesResponse = Type.Object(
  { countries: Type.Array(CountryEntry) },
  { title: 'CountryList' },
);
export const ChannelsResponse = Type.Object(
  {
    country: countryCode,
    channels: Type.Array(ChannelEntry),
  },
  { title: 'ChannelList' },
);
export const SearchResponse = Type.Object(
  { results: Type.Array(SearchResultEntry) },
  { title: 'ChannelSearchResults' },
);
export const ProgrammesResponse = Type.Object(
  {
    channelId: uuid,
    programmes: Type.Array(ProgrammeEntry),
  },
  { title: 'Schedule' },
);

export const ProgrammeResponse = Type.Object(
  { programme: RichProgrammeEntry },
  { title: 'ProgrammeDetail' },
);

const missingIds = Type.Array(uuid, {
  description: 'Ids of `channels=` that no channel has, in the order given',
});
const nextOffset = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'The `offset` of the next page of a country’s channels, or null on the last page',
});

export const GuideChannelEntry = Type.Object(
  {
    ...channelSummaryFields,
    programmes: Type.Array(RichProgrammeEntry, {
      description: 'Programmes starting before `to` and stopping after `from`, by start',
    }),
  },
  { title: 'GuideChannel' },
);
export const GuideResponse = Type.Object(
  {
    from: xmltvUtc,
    to: xmltvUtc,
    channels: Type.Array(GuideChannelEntry),
    missing: missingIds,
    next: nextOffset,
  },
  { title: 'Guide' },
);

const nullableRich = (description: string) =>
  Type.Union([RichProgrammeEntry, Type.Null()], { description });
export const NowChannelEntry = Type.Object(
  {
    ...channelSummaryFields,
    now: nullableRich('The programme running at `at` (of overlapping ones, the latest start)'),
    next: nullableRich('The first programme starting after `at`'),
  },
  { title: 'NowNextChannel' },
);
export const NowResponse = Type.Object(
  {
    at: xmltvUtc,
    channels: Type.Array(NowChannelEntry),
    missing: missingIds,
    next: nextOffset,
  },
  { title: 'NowNext' },
);

const instantText = (what: string) =>
  Type.String({
    description: `${what}: \`now\` (default), or an instant as \`YYYYMMDDHHMMSS +HHMM\` or ISO 8601 with an offset or \`Z\``,
    examples: ['now', '2026-08-22T18:00:00Z'],
  });
const selectionQuery = {
  country: Type.Optional(
    Type.String({
      description:
        'Every channel of this country, in the order of its channel list. Not with `channels`',
      examples: ['UK'],
    }),
  ),
  channels: Type.Optional(
    Type.String({
      description: '1–100 channel ids, comma-separated, answered in this order. Not with `country`',
      examples: ['dd41cb78-ddbb-5222-af7d-7173a2d56458'],
    }),
  ),
  limit: Type.Optional(
    Type.String({
      description: 'Channels per page of a country, 1–500 (default 500)',
      examples: ['100'],
    }),
  ),
  offset: Type.Optional(
    Type.String({
      description: 'Channels of the country to skip (default 0): `next` of the last page',
      examples: ['0'],
    }),
  ),
};
export const GuideQuery = Type.Object({
  ...selectionQuery,
  from: Type.Optional(instantText('Start of the window')),
  hours: Type.Optional(
    Type.String({
      description: 'Length of the window in hours, 1–48 (default 3)',
      examples: ['3'],
    }),
  ),
});
export const NowQuery = Type.Object({
  ...selectionQuery,
  at: Type.Optional(instantText('The instant')),
});

export const ProgrammeSearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      description:
        'Words, cut to 200 characters; each must be a word of the title, sub-title, description, categories or credits’ names, ignoring case and accents, the last also as the start of one. Blank or missing: no results',
      examples: ['star tre'],
    }),
  ),
  country: Type.Optional(
    Type.String({
      description: 'Only channels of this country; blank means every country',
      examples: ['UK'],
    }),
  ),
  channels: Type.Optional(
    Type.String({
      description: 'Only these channels: 1–100 channel ids, comma-separated',
      examples: ['dd41cb78-ddbb-5222-af7d-7173a2d56458'],
    }),
  ),
  from: Type.Optional(instantText('Programmes starting at or after')),
  to: Type.Optional(
    Type.String({
      description:
        'Programmes starting before: an instant as `YYYYMMDDHHMMSS +HHMM` or ISO 8601 with an offset or `Z`; default 14 days after `from`, at most 31 days after it',
      examples: ['2026-08-29T18:00:00Z'],
    }),
  ),
  limit: Type.Optional(
    Type.String({ description: 'Results per page, 1–200 (default 50)', examples: ['50'] }),
  ),
  cursor: Type.Optional(
    Type.String({
      description: '`next` of the previous page, with the same other parameters',
    }),
  ),
});

export const ProgrammeSearchResponse = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        { channel: SearchResultEntry, programme: RichProgrammeEntry },
        { title: 'ProgrammeSearchResult' },
      ),
      { description: 'By start, then channel name (case-insensitive), then programme id' },
    ),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'The `cursor` of the next page, or null on the last page',
    }),
  },
  { title: 'ProgrammeSearchResults' },
);

export const CountryParams = Type.Object({
  country: Type.String({
    description: 'Country code: letters, digits and hyphens, at most 16 characters, any case',
    examples: ['UK'],
  }),
});
export const ChannelParams = Type.Object({
  channelId: Type.String({
    description: 'Channel id (UUID): `id` from a channel list or `channelId` from a search',
    examples: ['dd41cb78-ddbb-5222-af7d-7173a2d56458'],
  }),
});

export const ProgrammeParams = Type.Object({
  channelId: ChannelParams.properties.channelId,
  programmeId: Type.String({
    description: 'Programme id: `id` of an entry of the channel’s schedule',
    examples: ['4611686018427387904'],
  }),
});

export const FeedParams = Type.Object({
  token: Type.String({
    description:
      'The feed token: the secret part of the URL shown once when the feed was made or its URL renewed',
    examples: ['Jw3nq2G5yM0b8xZc1Q4rT7uV9wX2yZ5aB8cD1eF4gH7'],
  }),
});
export type FeedParams = Static<typeof FeedParams>;

/**
 * Query values are declared as single strings: a repeated parameter arrives as an array, fails
 * validation and is answered 400. The rules on the values themselves live in `domain/`.
 */
export const SearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      description:
        'Search text, matched anywhere in the name, ignoring case and accents; cut to 200 characters. Blank or missing: no results',
      examples: ['news'],
    }),
  ),
  country: Type.Optional(
    Type.String({
      description: 'Restricts results to one country; blank means every country',
      examples: ['UK'],
    }),
  ),
});
export const ProgrammesQuery = Type.Object({
  days: Type.Optional(
    Type.String({
      description:
        'Integer 1-365: programmes starting at or after now minus that many days, all future ones included (default 7). Or `today`, `tomorrow`, `yesterday` (UTC calendar days, any case), or `all`. Not together with `all`',
      examples: ['7', 'today'],
    }),
  ),
  all: Type.Optional(
    Type.String({
      description:
        '`1` or `true`: every programme of the channel, also those whose start does not parse (same as days=all). Not together with `days`',
      examples: ['1'],
    }),
  ),
});

export const ChangesQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      description:
        'Records after this number: the `next` of the previous answer. Left out: from the newest now (an empty first page)',
      examples: ['1024'],
    }),
  ),
  limit: Type.Optional(
    Type.String({ description: 'Records per page, 1–1000 (default 500)', examples: ['500'] }),
  ),
  country: Type.Optional(
    Type.String({
      description: "Only the changes of this country's channels (their country now)",
      examples: ['UK'],
    }),
  ),
  channels: Type.Optional(
    Type.String({
      description: 'Only the changes of these channels: 1–100 channel ids, comma-separated',
      examples: ['dd41cb78-ddbb-5222-af7d-7173a2d56458'],
    }),
  ),
});

export const ChangeEntry = Type.Object(
  {
    seq: Type.Integer({
      minimum: 1,
      description: "The record's number: records are numbered in the order their ingests committed",
    }),
    kind: Type.Union([Type.Literal('programme'), Type.Literal('channel')]),
    change: Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('removed')]),
    channelId: uuid,
    at: Type.String({
      description:
        'The time of the ingest that made the change (the `updatedAt` of the programmes it changed), `YYYYMMDDHHMMSS +0000`',
    }),
    programmeId: Type.Optional(Type.String({ description: 'Programmes only' })),
    start: Type.Optional(
      Type.String({
        description:
          "Programmes only: the programme's start, in UTC form (`YYYYMMDDHHMMSS +0000`) when it parsed",
      }),
    ),
  },
  { title: 'Change' },
);
export const ChangesResponse = Type.Object(
  {
    changes: Type.Array(ChangeEntry),
    next: Type.Integer({
      minimum: 0,
      description: 'Send as `since` for the records after these (the newest looked at)',
    }),
    hasMore: Type.Boolean({ description: 'More records follow now: ask again at once' }),
  },
  { title: 'Changes' },
);

/** The error responses every keyed route can give. */
export const keyedErrorResponses = {
  401: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;
