/**
 * The shapes the Onair API answers with (its OpenAPI document at `/openapi.json` describes the
 * same; the client's tests check these types against the server's own schemas).
 */

/** A country of the catalogue. */
export interface Country {
  /** Country code: letters, digits and hyphens, at most 16 characters. */
  country: string;
  channelCount: number;
}

/** A channel in a country's list. */
export interface Channel {
  /** Channel id (UUID), used for its schedule. */
  id: string;
  name: string;
  /** Icon URL; can be empty. */
  icon: string;
  needsReview: boolean;
  country: string;
}

/** A channel found by a search. */
export interface SearchResult {
  /** Channel id (UUID), used for its schedule. */
  channelId: string;
  name: string;
  icon: string;
  country: string;
  needsReview: boolean;
}

/** A programme of a schedule. */
export interface Programme {
  /** Digits. */
  id: string;
  /** XMLTV datetime in UTC, `YYYYMMDDHHMMSS +0000` (as stored upstream when it does not parse). */
  start: string;
  stop: string;
  title: string;
  desc: string;
  /** Categories separated by ", ". */
  category: string;
  sourceFileId: string;
  needsReview: boolean;
  /** Digits: when the programme last changed. */
  updatedAt: string;
}

export interface CountriesResponse {
  countries: Country[];
}

export interface ChannelsResponse {
  country: string;
  channels: Channel[];
}

export interface SearchResponse {
  results: SearchResult[];
}

export interface ProgrammesResponse {
  channelId: string;
  programmes: Programme[];
}

/**
 * Which programmes to get: a lookback of 1 to 365 days (every future programme included), a
 * UTC calendar day, or all of them (also those whose start does not parse).
 */
export type ScheduleDays = number | 'today' | 'tomorrow' | 'yesterday' | 'all';
