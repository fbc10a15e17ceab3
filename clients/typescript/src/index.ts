export { OnairClient } from './client.js';
export type { CallOptions, OnairClientOptions, RetryInfo, RetryOptions } from './client.js';
export { OnairError } from './errors.js';
export type { OnairErrorCode } from './errors.js';
export type {
  Channel,
  ChannelsResponse,
  CountriesResponse,
  Country,
  Programme,
  ProgrammesResponse,
  ScheduleDays,
  SearchResponse,
  SearchResult,
} from './types.js';
