import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0);
let store: SqliteStore;
let accountId: string;

beforeEach(async () => {
  store = openSqliteStore({ path: ':memory:', nowMs: NOW });
  accountId = (
    await store.accounts.createAccount(
      { email: 'ann@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
      NOW,
    )
  ).id;
});
afterEach(async () => {
  await store.close();
});

const link = (tokenHash: string, expiresAt = NOW + 900_000) =>
  ({ tokenHash, purpose: 'sign-in', email: 'ann@example.com', expiresAt }) as const;

describe('sign-in links', () => {
  it('findLink does not use a link up; consumeLink does, once', async () => {
    await store.signIn.createLink(link('h1'), NOW);
    expect(await store.signIn.findLink('h1', 'sign-in', NOW)).toEqual({ email: 'ann@example.com' });
    expect(await store.signIn.findLink('h1', 'sign-in', NOW)).not.toBeNull();
    expect(await store.signIn.consumeLink('h1', 'sign-in', NOW)).toEqual({
      email: 'ann@example.com',
    });
    expect(await store.signIn.consumeLink('h1', 'sign-in', NOW)).toBeNull();
    expect(await store.signIn.findLink('h1', 'sign-in', NOW)).toBeNull();
  });

  it('refuses an expired link, an unknown one, and one of another purpose', async () => {
    await store.signIn.createLink(link('h2', NOW + 1000), NOW);
    expect(await store.signIn.consumeLink('h2', 'sign-in', NOW + 1000)).toBeNull();
    expect(await store.signIn.consumeLink('nope', 'sign-in', NOW)).toBeNull();
    await store.signIn.createLink(link('h3'), NOW);
    store.db.prepare("UPDATE sign_in_links SET purpose = 'other' WHERE token_hash = 'h3'").run();
    expect(await store.signIn.findLink('h3', 'sign-in', NOW)).toBeNull();
    expect(await store.signIn.consumeLink('h3', 'sign-in', NOW)).toBeNull();
  });

  it('deleteExpired removes expired links and sessions only', async () => {
    await store.signIn.createLink(link('old', NOW + 10), NOW);
    await store.signIn.createLink(link('new', NOW + 10_000), NOW);
    await store.signIn.createSession('s-old', accountId, NOW + 10, NOW);
    await store.signIn.createSession('s-new', accountId, NOW + 10_000, NOW);
    await store.signIn.deleteExpired(NOW + 10);
    const count = (table: string) =>
      (store.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count('sign_in_links'), count('sessions')]).toEqual([1, 1]);
  });
});

describe('sessions', () => {
  it('are found until they expire, and end one by one or all of an account at once', async () => {
    const other = await store.accounts.createAccount(
      { email: 'bob@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
      NOW,
    );
    await store.signIn.createSession('a1', accountId, NOW + 1000, NOW);
    await store.signIn.createSession('a2', accountId, NOW + 1000, NOW);
    await store.signIn.createSession('b1', other.id, NOW + 1000, NOW);
    expect(await store.signIn.findSession('a1', NOW)).toEqual({
      accountId,
      createdAt: NOW,
      expiresAt: NOW + 1000,
    });
    expect(await store.signIn.findSession('a1', NOW + 1000)).toBeNull();
    await store.signIn.deleteSession('a1');
    expect(await store.signIn.findSession('a1', NOW)).toBeNull();
    expect(await store.signIn.deleteAccountSessions(accountId)).toBe(1);
    expect(await store.signIn.findSession('a2', NOW)).toBeNull();
    expect(await store.signIn.findSession('b1', NOW)).not.toBeNull();
  });
});
