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
  /**
   * XMLTV datetime in UTC, `YYYYMMDDHHMMSS +0000` (as written upstream when it did not parse);
   * `xmltvTime(start)` makes it a Date.
   */
  start: string;
  /** As `start`; `""` when the guide gave none (XMLTV's stop is optional). */
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

/** A text with its language: the `lang` attribute, `""` when the guide gives none. */
export interface LangText {
  value: string;
  lang: string;
}

/** A value with the system it is given in: the `system` attribute, `""` when absent. */
export interface SystemValue {
  system: string;
  value: string;
}

/**
 * A programme's episode numbering, counted from 1 (the guide's `xmltv_ns` counts from 0); each
 * number is null where the guide leaves it blank.
 */
export interface EpisodeNumber {
  season: number | null;
  episode: number | null;
  part: number | null;
  /** Seasons in all. */
  seasons: number | null;
  /** Episodes in the season. */
  episodes: number | null;
  /** Parts of the episode. */
  parts: number | null;
  /** The `system="onscreen"` text, as shown to viewers, or null. */
  onScreen: string | null;
}

/** The XMLTV `<credits>` roles. */
export type CreditRole =
  | 'director'
  | 'actor'
  | 'writer'
  | 'adapter'
  | 'producer'
  | 'composer'
  | 'editor'
  | 'presenter'
  | 'commentator'
  | 'guest';

/** A person of a programme's credits. */
export interface Credit {
  role: CreditRole;
  name: string;
  /** The part an actor plays; `""` otherwise. */
  character: string;
}

/** When and where a programme was shown before. */
export interface PreviouslyShown {
  /** `YYYYMMDDHHMMSS +0000` like every time; `""` when the guide does not say. */
  start: string;
  /** The XMLTV channel id; `""` when not given. */
  channel: string;
}

/** `<video>`: each part null when the guide leaves it out. */
export interface Video {
  colour: boolean | null;
  aspect: string | null;
  quality: string | null;
}

/** `<audio>`. */
export interface Audio {
  stereo: string | null;
}

/** One `<subtitles>`. */
export interface Subtitles {
  /** `teletext`, `onscreen` or `deaf-signed`; may be `""`. */
  type: string;
  language: string;
}

/**
 * A programme with everything its guide says of it: the schedule entry's fields, unchanged,
 * then its channel and the rich data. A text the guide leaves out is `""`, a structure `null`,
 * a list empty; lists are in guide order.
 */
export interface RichProgramme extends Programme {
  channelId: string;
  /** The first `<sub-title>`. */
  subTitle: string;
  titles: LangText[];
  subTitles: LangText[];
  descs: LangText[];
  /** Null when the programme has no `<episode-num>`. */
  episodeNumber: EpisodeNumber | null;
  /** Every `<episode-num>` as given, e.g. `{ system: 'dd_progid', value: 'EP01234567.0012' }`. */
  episodeIds: SystemValue[];
  categories: string[];
  keywords: string[];
  /** Every `<icon>` `src` and `<image>` URL. */
  images: string[];
  urls: string[];
  credits: Credit[];
  /** The `<date>` as given (e.g. the year made). */
  date: string;
  productionCountries: string[];
  language: string;
  originalLanguage: string;
  /** `<length>` in seconds whatever its units; null when none or unreadable. */
  lengthSeconds: number | null;
  ratings: SystemValue[];
  starRatings: SystemValue[];
  isNew: boolean;
  premiere: boolean;
  lastChance: boolean;
  previouslyShown: PreviouslyShown | null;
  video: Video | null;
  audio: Audio | null;
  subtitles: Subtitles[];
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

export interface ProgrammeResponse {
  programme: RichProgramme;
}

/** A channel of a guide or now/next answer: what a channel list says of it. */
export interface GridChannel {
  channelId: string;
  name: string;
  /** Icon URL; can be empty. */
  icon: string;
  country: string;
  needsReview: boolean;
}

/** A channel of the guide with its programmes in the window. */
export interface GuideChannel extends GridChannel {
  /** Programmes starting before `to` and stopping after `from`, by start. */
  programmes: RichProgramme[];
}

/** The guide grid: many channels' programmes in the window [`from`, `to`). */
export interface GuideResponse {
  /** Start of the window, `YYYYMMDDHHMMSS +0000`. */
  from: string;
  /** End of the window (excluded), `YYYYMMDDHHMMSS +0000`. */
  to: string;
  channels: GuideChannel[];
  /** Ids of `channels` that no channel has, in the order given. */
  missing: string[];
  /** The `offset` of the next page of a country's channels, or null on the last page. */
  next: number | null;
}

/** A programme a search found, with its channel. */
export interface ProgrammeSearchResult {
  channel: GridChannel;
  programme: RichProgramme;
}

/** A page of a programme search. */
export interface ProgrammeSearchResponse {
  /** By start, then channel name (case-insensitive), then programme id. */
  results: ProgrammeSearchResult[];
  /** The `cursor` of the next page, or null on the last page. */
  next: string | null;
}

/** One record of the change log: a programme or a channel an ingest added, changed or removed. */
export interface Change {
  /** The record's number: records are numbered in the order their ingests committed. */
  seq: number;
  kind: 'programme' | 'channel';
  change: 'added' | 'changed' | 'removed';
  channelId: string;
  /** Programmes only. */
  programmeId?: string;
  /** Programmes only: the start, `YYYYMMDDHHMMSS +0000` when it parsed. */
  start?: string;
  /** The time of the ingest that made the change, `YYYYMMDDHHMMSS +0000`. */
  at: string;
}

/** A page of the change log. */
export interface ChangesResponse {
  /** In `seq` order. */
  changes: Change[];
  /** Send as `since` for the records after these. */
  next: number;
  /** More records follow now: ask again at once. */
  hasMore: boolean;
}

/** A channel with what is on at `at` and what comes next. */
export interface NowChannel extends GridChannel {
  /** The programme running at `at` (of overlapping ones, the latest start), or null. */
  now: RichProgramme | null;
  /** The first programme starting after `at`, or null. */
  next: RichProgramme | null;
}

/** Now and next on many channels. */
export interface NowResponse {
  /** The instant asked about, `YYYYMMDDHHMMSS +0000`. */
  at: string;
  channels: NowChannel[];
  /** Ids of `channels` that no channel has, in the order given. */
  missing: string[];
  /** The `offset` of the next page of a country's channels, or null on the last page. */
  next: number | null;
}

/**
 * Which channels a guide or now/next call is for: every channel of a country (in the order of
 * its channel list, paged by `limit`, 1 to 500, default 500, and `offset`), or 1 to 100 channel
 * ids (answered in the order given, each once). Exactly one of the two; paging is for a
 * country only.
 */
export type ChannelSelection =
  | {
      country: string;
      channels?: never;
      limit?: number | undefined;
      offset?: number | undefined;
    }
  | { channels: readonly string[]; country?: never; limit?: never; offset?: never };

/**
 * An instant: a `Date` (sent as ISO 8601 in UTC), `'now'`, or a string the API reads:
 * `YYYYMMDDHHMMSS +HHMM` (XMLTV) or ISO 8601 with `Z` or an offset. Whole seconds count.
 */
export type Instant = Date | string;

/**
 * Which programmes to get: a lookback of 1 to 365 days (every future programme included), a
 * UTC calendar day, or all of them (also those whose start does not parse).
 */
export type ScheduleDays = number | 'today' | 'tomorrow' | 'yesterday' | 'all';
