/** The error codes the API answers with, and the client's own for failures without an answer. */
export type OnairErrorCode =
  | 'UNAUTHORIZED'
  | 'EMAIL_NOT_VERIFIED'
  | 'ACCESS_EXPIRED'
  | 'ACCOUNT_DISABLED'
  | 'RATE_LIMITED'
  | 'INVALID_COUNTRY'
  | 'INVALID_DAYS'
  | 'INVALID_PARAMETERS'
  | 'BAD_REQUEST'
  | 'CHANNEL_NOT_FOUND'
  | 'PROGRAMME_NOT_FOUND'
  | 'NOT_FOUND'
  | 'CURSOR_EXPIRED'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  /** No answer: the connection failed. */
  | 'NETWORK_ERROR'
  /** No answer within `timeoutMs`. */
  | 'TIMEOUT'
  /** An answer that is not the API's JSON (a proxy's error page, say). */
  | 'UNEXPECTED_RESPONSE';

/**
 * Every failure of an API call. `status` is the HTTP status (0 when there was no answer) and
 * `code` the API's stable code; a code added by a newer server comes through as it is.
 */
export class OnairError extends Error {
  override name = 'OnairError';

  constructor(
    message: string,
    readonly status: number,
    // `string & {}` keeps editor completion of the known codes while allowing new ones.
    readonly code: OnairErrorCode | (string & {}),
    /** Seconds the server asked to wait (`Retry-After` on 429 and 503), else null. */
    readonly retryAfterSeconds: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
