/** What a sign-in link may be used for; a token works only for the purpose it was made for. */
export type LinkPurpose = 'sign-in';

export interface NewSignInLink {
  /** SHA-256 of the token; the token itself is only in the e-mail. */
  tokenHash: string;
  purpose: LinkPurpose;
  email: string;
  expiresAt: number;
}

/** A browser session, found by the hash of the id in its cookie. */
export interface SessionRecord {
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

/** Single-use sign-in links and browser sessions of the account pages. */
export interface SignInStore {
  createLink(link: NewSignInLink, nowMs: number): Promise<void>;
  /** The e-mail of an unused, unexpired link of this purpose, without using it up. */
  findLink(
    tokenHash: string,
    purpose: LinkPurpose,
    nowMs: number,
  ): Promise<{ email: string } | null>;
  /**
   * Uses a link up, atomically: the first call for an unused, unexpired link of this purpose
   * returns its e-mail; every other call returns null.
   */
  consumeLink(
    tokenHash: string,
    purpose: LinkPurpose,
    nowMs: number,
  ): Promise<{ email: string } | null>;
  createSession(
    sessionHash: string,
    accountId: string,
    expiresAt: number,
    nowMs: number,
  ): Promise<void>;
  /** The live session with this hash, or null when unknown or expired. */
  findSession(sessionHash: string, nowMs: number): Promise<SessionRecord | null>;
  deleteSession(sessionHash: string): Promise<void>;
  /** Ends every session of an account ("sign out everywhere"); returns how many ended. */
  deleteAccountSessions(accountId: string): Promise<number>;
  /** Removes expired links and sessions. */
  deleteExpired(nowMs: number): Promise<void>;
}
