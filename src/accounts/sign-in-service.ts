import { DAY_MS } from '../domain/schedule-window.js';
import {
  generateSecretToken,
  hashSecretToken,
  isWellFormedSecretToken,
} from '../domain/secret-token.js';
import type { Mailer, OutgoingMail } from '../mail/types.js';
import { DuplicateAccountError } from '../storage/errors.js';
import type { Account } from '../domain/account.js';
import type { Store } from '../storage/store.js';

/** A sign-in link works once, for 15 minutes. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** A browser session lasts 30 days from sign-in. */
export const SESSION_TTL_MS = 30 * DAY_MS;

/** Where mail failures are reported (never with the link in the message). */
export interface SignInLog {
  error(obj: object, msg: string): void;
}

export interface SignInDeps {
  store: Store;
  mailer: Mailer;
  now: () => number;
  log: SignInLog;
  /** The public base URL the e-mailed link points to (never taken from a request's Host). */
  siteUrl: () => string;
}

/** A signed-in browser: the account and the session that proves it. */
export interface SignedIn {
  account: Account;
  sessionHash: string;
}

function signInMail(to: string, link: string): OutgoingMail {
  return {
    to,
    subject: 'Your Onair sign-in link',
    text: [
      'Hello,',
      '',
      'Open this link to sign in to Onair. It works once, within 15 minutes:',
      '',
      link,
      '',
      'The first sign-in also confirms this e-mail address and starts your 7-day trial.',
      'If you did not ask to sign in, ignore this message; nothing happens without the link.',
      '',
      'Onair',
    ].join('\n'),
  };
}

/** Passwordless sign-in: e-mailed single-use links, and sessions made from them. */
export function createSignInService(deps: SignInDeps) {
  const { store } = deps;

  /** The account for a confirmed address: created on first sign-in, verified once, ever. */
  async function accountForVerifiedEmail(email: string, nowMs: number): Promise<Account> {
    let account = await store.accounts.findAccountByEmail(email);
    if (account === null) {
      try {
        account = await store.accounts.createAccount(
          { email, verifiedAt: nowMs, accessUntil: null, rateLimit: null },
          nowMs,
        );
        await store.accounts.recordAudit(
          { accountId: account.id, actor: 'account', action: 'account.created', details: {} },
          nowMs,
        );
        await store.accounts.recordAudit(
          { accountId: account.id, actor: 'account', action: 'email.verified', details: {} },
          nowMs,
        );
        return account;
      } catch (error) {
        // Two links of one new address confirmed at once: the other one created the account.
        if (!(error instanceof DuplicateAccountError)) throw error;
        account = await store.accounts.findAccountByEmail(email);
        if (account === null) throw error;
      }
    }
    if (account.verifiedAt !== null) return account;
    const verified = await store.accounts.markVerified(account.id, nowMs);
    if (verified.verifiedAt === nowMs) {
      await store.accounts.recordAudit(
        { accountId: account.id, actor: 'account', action: 'email.verified', details: {} },
        nowMs,
      );
    }
    return verified;
  }

  return {
    /**
     * Stores a new link for `email` and sends it. Resolves once the link is stored; the mail
     * is sent in the background so the answer (and its timing) is the same for every address.
     */
    async requestLink(email: string): Promise<void> {
      const nowMs = deps.now();
      // Housekeeping rides along: expired links and sessions are dropped (an indexed delete).
      await store.signIn.deleteExpired(nowMs);
      const token = generateSecretToken();
      await store.signIn.createLink(
        {
          tokenHash: hashSecretToken(token),
          purpose: 'sign-in',
          email,
          expiresAt: nowMs + SIGN_IN_LINK_TTL_MS,
        },
        nowMs,
      );
      const link = `${deps.siteUrl()}/signin/confirm?token=${token}`;
      deps.mailer.send(signInMail(email, link)).catch((error: unknown) => {
        deps.log.error({ err: error, to: email }, 'sending the sign-in e-mail failed');
      });
    },

    /** The address a link is for, while it is unused and unexpired; does not use it up. */
    async checkLink(token: string): Promise<string | null> {
      if (!isWellFormedSecretToken(token)) return null;
      const link = await store.signIn.findLink(hashSecretToken(token), 'sign-in', deps.now());
      return link?.email ?? null;
    },

    /**
     * Uses a link up and starts a session: the first use verifies the address (and so starts
     * the trial). Returns the new session id for the cookie, or null for an unusable link.
     */
    async confirmLink(token: string): Promise<{ sessionId: string; account: Account } | null> {
      if (!isWellFormedSecretToken(token)) return null;
      const nowMs = deps.now();
      const link = await store.signIn.consumeLink(hashSecretToken(token), 'sign-in', nowMs);
      if (link === null) return null;
      const account = await accountForVerifiedEmail(link.email, nowMs);
      const sessionId = generateSecretToken();
      await store.signIn.createSession(
        hashSecretToken(sessionId),
        account.id,
        nowMs + SESSION_TTL_MS,
        nowMs,
      );
      return { sessionId, account };
    },

    /** The account behind a session cookie, or null when the session is unknown or over. */
    async findSignedIn(sessionId: string): Promise<SignedIn | null> {
      if (!isWellFormedSecretToken(sessionId)) return null;
      const sessionHash = hashSecretToken(sessionId);
      const session = await store.signIn.findSession(sessionHash, deps.now());
      if (session === null) return null;
      const account = await store.accounts.findAccountById(session.accountId);
      return account === null ? null : { account, sessionHash };
    },

    async signOut(sessionHash: string): Promise<void> {
      await store.signIn.deleteSession(sessionHash);
    },

    async signOutEverywhere(accountId: string): Promise<void> {
      const ended = await store.signIn.deleteAccountSessions(accountId);
      await store.accounts.recordAudit(
        { accountId, actor: 'account', action: 'sessions.ended', details: { sessions: ended } },
        deps.now(),
      );
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
