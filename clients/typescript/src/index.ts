export { OnairClient } from './client.js';
export type { CallOptions, OnairClientOptions, RetryInfo, RetryOptions } from './client.js';
export { OnairError } from './errors.js';
export type { OnairErrorCode } from './errors.js';
export type {
  Audio,
  Channel,
  ChannelsResponse,
  CountriesResponse,
  Country,
  Credit,
  CreditRole,
  EpisodeNumber,
  LangText,
  PreviouslyShown,
  Programme,
  ProgrammeResponse,
  ProgrammesResponse,
  RichProgramme,
  ScheduleDays,
  SearchResponse,
  SearchResult,
  Subtitles,
  SystemValue,
  Video,
} from './types.js';
