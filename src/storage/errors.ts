/** Errors every storage engine raises the same way, so callers need not know the engine. */

/** Raised when an account with the same address already exists. */
export class DuplicateAccountError extends Error {
  override name = 'DuplicateAccountError';
}

/** Raised when an account id or e-mail does not exist. */
export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError';
}
