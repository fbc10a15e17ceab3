/**
 * The one catalogue of errors the service can answer with. Every error a customer or operator
 * sees has a stable `code`; the HTTP status lives here too so the mapping is decided once.
 */
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  EMAIL_NOT_VERIFIED: 403,
  ACCESS_EXPIRED: 403,
  ACCOUNT_DISABLED: 403,
  RATE_LIMITED: 429,
  INVALID_COUNTRY: 400,
  INVALID_DAYS: 400,
  INVALID_PARAMETERS: 400,
  BAD_REQUEST: 400,
  CHANNEL_NOT_FOUND: 404,
  PROGRAMME_NOT_FOUND: 404,
  NOT_FOUND: 404,
  CURSOR_EXPIRED: 410,
  CROSS_SITE_REQUEST: 403,
  METHOD_NOT_ALLOWED: 405,
  KEY_LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error that is part of the contract: it carries the code and message a client receives. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds until a retry can succeed; sent as `Retry-After` on 429 and 503. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const errors = {
  unauthorized: () => new AppError('UNAUTHORIZED', 'Missing or invalid API key'),
  metricsUnauthorized: () =>
    new AppError('UNAUTHORIZED', 'Missing or invalid metrics token (METRICS_TOKEN)'),
  emailNotVerified: () =>
    new AppError('EMAIL_NOT_VERIFIED', 'The e-mail address of this account is not verified'),
  accessExpired: () =>
    new AppError('ACCESS_EXPIRED', 'This account has no active trial or paid access'),
  accountDisabled: () => new AppError('ACCOUNT_DISABLED', 'This account is disabled'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('RATE_LIMITED', 'Rate limit exceeded', retryAfterSeconds),
  authRateLimited: (retryAfterSeconds: number) =>
    new AppError(
      'RATE_LIMITED',
      'Too many requests with a missing or invalid API key from this address',
      retryAfterSeconds,
    ),
  feedRateLimited: (retryAfterSeconds: number) =>
    new AppError('RATE_LIMITED', 'Too many fetches of this feed', retryAfterSeconds),
  playgroundRateLimited: (retryAfterSeconds: number) =>
    new AppError(
      'RATE_LIMITED',
      'Too many playground requests from this address; try again shortly',
      retryAfterSeconds,
    ),
  invalidCountry: () =>
    new AppError(
      'INVALID_COUNTRY',
      'Invalid country code: use letters, digits and hyphens, at most 16 characters',
    ),
  invalidDays: () =>
    new AppError(
      'INVALID_DAYS',
      'Invalid days: use an integer from 1 to 365, today, tomorrow, yesterday or all',
    ),
  invalidParameters: (message: string) => new AppError('INVALID_PARAMETERS', message),
  badRequest: (message: string) => new AppError('BAD_REQUEST', message),
  channelNotFound: () => new AppError('CHANNEL_NOT_FOUND', 'Channel not found'),
  channelNotInPreview: () =>
    new AppError(
      'CHANNEL_NOT_FOUND',
      'Channel not in the preview data: the playground shows a few channels; the API serves them all',
    ),
  programmeNotFound: () => new AppError('PROGRAMME_NOT_FOUND', 'Programme not found'),
  notFound: () => new AppError('NOT_FOUND', 'Not found'),
  cursorExpired: (message: string) => new AppError('CURSOR_EXPIRED', message),
  methodNotAllowed: () => new AppError('METHOD_NOT_ALLOWED', 'Method not allowed'),
  serviceUnavailable: (message = 'Service temporarily unavailable') =>
    new AppError('SERVICE_UNAVAILABLE', message, 1),
  internal: () => new AppError('INTERNAL_ERROR', 'Internal server error'),
  crossSiteRequest: () =>
    new AppError(
      'CROSS_SITE_REQUEST',
      'This form was sent from another site, so it was refused. Open the page on this site and try again.',
    ),
  keyLimitReached: (cap: number) =>
    new AppError(
      'KEY_LIMIT_REACHED',
      `An account can hold ${cap} active keys. Revoke one to create another.`,
    ),
  payloadTooLarge: () => new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'),
  requestTimeout: () => new AppError('REQUEST_TIMEOUT', 'Request timeout'),
  headersTooLarge: () =>
    new AppError(
      'HEADERS_TOO_LARGE',
      'The URL and headers together are too large (16 KB at most): send a shorter URL or fewer headers',
    ),
  malformedHttp: () => new AppError('BAD_REQUEST', 'Malformed HTTP request'),
  /** A request line whose URL holds bytes HTTP does not allow there (raw UTF-8). */
  unencodedUrl: () =>
    new AppError(
      'BAD_REQUEST',
      'Malformed URL: letters beyond ASCII must be percent-encoded (é as %C3%A9)',
    ),
} as const;
