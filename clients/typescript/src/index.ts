export { OnairClient } from './client.js';
export type {
  CallOptions,
  ChangesOptions,
  GuideOptions,
  NowOptions,
  OnairClientOptions,
  RateLimitState,
  RetryInfo,
  RetryOptions,
  SearchProgrammesOptions,
} from './client.js';
export { OnairError } from './errors.js';
export { xmltvTime } from './times.js';
export type { OnairErrorCode } from './errors.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookErrorCode, WebhookPayload } from './webhooks.js';
export type {
  Audio,
  Change,
  ChangesResponse,
  Channel,
  ChannelSelection,
  ChannelsResponse,
  CountriesResponse,
  Country,
  Credit,
  CreditRole,
  EpisodeNumber,
  GridChannel,
  GuideChannel,
  GuideResponse,
  Instant,
  LangText,
  NowChannel,
  NowResponse,
  PreviouslyShown,
  Programme,
  ProgrammeResponse,
  ProgrammeSearchResponse,
  ProgrammeSearchResult,
  ProgrammesResponse,
  RichProgramme,
  ScheduleDays,
  SearchResponse,
  SearchResult,
  Subtitles,
  SystemValue,
  Video,
} from './types.js';
