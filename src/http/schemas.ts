import { Type, type Static } from 'typebox';

/**
 * The customer contract as schemas. Responses are serialised through these, so a field that is
 * not here never reaches a client.
 */

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'Stable machine-readable identifier' }),
  },
  { $id: 'ErrorBody' },
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

export const CountryEntry = Type.Object({
  country: countryCode,
  channelCount: Type.Integer({ minimum: 0 }),
});

export const ChannelEntry = Type.Object({
  id: uuid,
  name: Type.String(),
  icon: Type.String({ description: 'Icon URL; can be empty' }),
  needsReview: Type.Boolean(),
  country: countryCode,
});

export const SearchResultEntry = Type.Object({
  channelId: uuid,
  name: Type.String(),
  icon: Type.String({ description: 'Icon URL; can be empty' }),
  country: countryCode,
  needsReview: Type.Boolean(),
});

export const ProgrammeEntry = Type.Object({
  id: Type.String({ pattern: '^[0-9]+$' }),
  start: xmltvUtc,
  stop: xmltvUtc,
  title: Type.String(),
  desc: Type.String(),
  category: Type.String({ description: 'Categories separated by ", "' }),
  sourceFileId: uuid,
  needsReview: Type.Boolean(),
  updatedAt: Type.String({
    pattern: '^[0-9]+$',
    description: 'When the programme last changed',
  }),
});

export const CountriesResponse = Type.Object({ countries: Type.Array(CountryEntry) });
export const ChannelsResponse = Type.Object({
  country: countryCode,
  channels: Type.Array(ChannelEntry),
});
export const SearchResponse = Type.Object({ results: Type.Array(SearchResultEntry) });
export const ProgrammesResponse = Type.Object({
  channelId: uuid,
  programmes: Type.Array(ProgrammeEntry),
});

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

/** The error responses every keyed route can give. */
export const keyedErrorResponses = {
  401: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;
