import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0);
const HOUR = 3_600_000;
let store: SqliteStore;

beforeEach(() => {
  store = openSqliteStore({ path: ':memory:', nowMs: NOW });
});
afterEach(async () => {
  await store.close();
});

const newAccount = (email: string, verifiedAt: number | null = null) =>
  store.accounts.createAccount({ email, verifiedAt, accessUntil: null, rateLimit: null }, NOW);

const newKey = (accountId: string, name: string) =>
  store.accounts.createApiKey(
    { accountId, name, keyHash: `hash-${name}`, prefix: 'onair_abcd', lastFour: 'wxyz' },
    NOW,
  );

describe('SQLite account store', () => {
  it('markVerified sets the first verification only', async () => {
    const account = await newAccount('ann@example.com');
    expect((await store.accounts.markVerified(account.id, NOW + 1)).verifiedAt).toBe(NOW + 1);
    expect((await store.accounts.markVerified(account.id, NOW + 2)).verifiedAt).toBe(NOW + 1);
    expect((await store.accounts.findAccountById(account.id))?.verifiedAt).toBe(NOW + 1);
    expect(await store.accounts.findAccountById('missing')).toBeNull();
  });

  it('finds keys by id, and last use never goes back', async () => {
    const account = await newAccount('ann@example.com', NOW);
    const key = await newKey(account.id, 'a');
    expect(await store.accounts.findApiKey(key.id)).toEqual(key);
    expect(await store.accounts.findApiKey('missing')).toBeNull();
    await store.accounts.markKeysUsed([{ keyId: key.id, at: NOW + 5000 }]);
    await store.accounts.markKeysUsed([{ keyId: key.id, at: NOW + 1000 }]);
    expect((await store.accounts.findApiKey(key.id))?.lastUsedAt).toBe(NOW + 5000);
  });

  it('adds usage per hour and sums it from a time on', async () => {
    const ann = await newAccount('ann@example.com', NOW);
    const bob = await newAccount('bob@example.com', NOW);
    const hour = Math.floor(NOW / HOUR) * HOUR;
    await store.accounts.addUsage([
      { accountId: ann.id, hourStart: hour - 2 * HOUR, requests: 100, limited: 1 },
      { accountId: ann.id, hourStart: hour, requests: 5, limited: 2 },
      { accountId: bob.id, hourStart: hour, requests: 7, limited: 0 },
    ]);
    await store.accounts.addUsage([
      { accountId: ann.id, hourStart: hour, requests: 3, limited: 1 },
    ]);
    expect(await store.accounts.usageSince(ann.id, hour - HOUR)).toEqual({
      requests: 8,
      limited: 3,
    });
    expect(await store.accounts.usageSince(ann.id, hour - 2 * HOUR)).toEqual({
      requests: 108,
      limited: 4,
    });
    expect(await store.accounts.usageSince('nobody', 0)).toEqual({ requests: 0, limited: 0 });
  });

  it('keeps the audit trail in order, details as JSON', async () => {
    const account = await newAccount('ann@example.com');
    for (const action of ['first', 'second', 'third']) {
      await store.accounts.recordAudit(
        {
          accountId: account.id,
          actor: 'operator',
          action,
          details: { n: action, nested: [1, null] },
        },
        NOW, // the same millisecond: the id keeps the order
      );
    }
    const audit = await store.accounts.listAudit(account.id);
    expect(audit.map((e) => e.action)).toEqual(['first', 'second', 'third']);
    expect(audit[0]).toMatchObject({
      accountId: account.id,
      at: NOW,
      actor: 'operator',
      details: { n: 'first', nested: [1, null] },
    });
  });

  it('refuses a value of the wrong type (STRICT tables)', () => {
    store.db
      .prepare(
        "INSERT INTO accounts (id, email, email_key, disabled, created_at, updated_at) VALUES ('x', 'x@y.z', 'x@y.z', 0, 1, 1)",
      )
      .run();
    expect(() =>
      store.db.prepare("UPDATE accounts SET access_until = '' WHERE id = 'x'").run(),
    ).toThrow(/cannot store TEXT value in INTEGER column/);
  });
});
