/** Errors every storage engine raises the same way, so callers need not know the engine. */

/** Raised when an account with the same address already exists. */
export class DuplicateAccountError extends Error {
  override name = 'DuplicateAccountError';
}

/** Raised when an account id or e-mail does not exist. */
export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError';
}

/** Raised when a guide location is already a source. */
export class DuplicateSourceError extends Error {
  override name = 'DuplicateSourceError';
}

/** A schema that cannot be used as it is; the message says what to do. */
export class SchemaVersionError extends Error {
  override name = 'SchemaVersionError';
}

// Node socket errors, pg's own timeouts, and PostgreSQL's "connection exception" (08) and
// "operator intervention" (57P) classes: the database is not there, not the request wrong.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'SQLITE_BUSY',
]);
const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Connection terminated',
  'Client has encountered a connection error',
];

/**
 * Why the storage cannot take writes, in words for an operator, or null when the error is not
 * one of those: a read-only database file or file system, a full disk (SQLite's or
 * PostgreSQL's), an I/O error.
 */
export function describeStorageWriteFailure(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return null;
  if (code.startsWith('SQLITE_READONLY') || code === '25006') {
    return 'the database is read-only (check the permissions of the database file, its directory and its file system)';
  }
  if (code === 'SQLITE_FULL' || code === '53100') {
    return 'the disk holding the database or its temporary files is full';
  }
  if (code.startsWith('SQLITE_IOERR')) return `the disk reported an I/O error (${code})`;
  if (code === 'SQLITE_CANTOPEN') return 'the database file cannot be opened';
  return null;
}

/**
 * Whether an error means the storage cannot serve the request now (answered 503, not 500):
 * unreachable, shutting down, or unable to take writes (read-only, disk full).
 */
export function isStorageUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return true;
    // PostgreSQL's "insufficient resources" (53: disk full, out of memory, too many connections).
    if (code.startsWith('53')) return true;
  }
  if (describeStorageWriteFailure(error) !== null) return true;
  if (error instanceof AggregateError && error.errors.some(isStorageUnavailable)) return true;
  return UNAVAILABLE_MESSAGES.some((m) => error.message.includes(m));
}

/** Where a background pass says how it failed: a pino logger, or a test's recorder. */
export interface PassLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Says why a background pass (webhook deliveries, source refreshes) failed: the storage out of
 * reach for a moment is a one-line warning, as the API's 503s are logged (the pass runs again
 * by itself); anything else is an error with its stack.
 */
export function reportPassFailure(log: PassLog, pass: string, error: unknown): void {
  if (isStorageUnavailable(error)) {
    log.warn(
      { error: (error as Error).message },
      `${pass} skipped: storage unavailable; tried again at the next pass`,
    );
  } else {
    log.error({ err: error }, `${pass} failed`);
  }
}

/** An account already has as many feeds as it may. */
export class FeedLimitError extends Error {
  override name = 'FeedLimitError';
}

/** An account already has as many webhooks as it may. */
export class WebhookLimitError extends Error {
  override name = 'WebhookLimitError';
}
