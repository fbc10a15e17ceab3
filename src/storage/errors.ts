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

/** Whether an error means the storage cannot be reached now (answered 503, not 500). */
export function isStorageUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return true;
  }
  if (error instanceof AggregateError && error.errors.some(isStorageUnavailable)) return true;
  return UNAVAILABLE_MESSAGES.some((m) => error.message.includes(m));
}
