import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTempStore, type TempStore } from '../../../test/helpers/temp-store.js';
import { createSqliteDataVersions } from './data-versions.js';
import { openSqliteStore } from './sqlite-store.js';

const NOW = Date.UTC(2026, 2, 1);
let temp: TempStore;

beforeEach(() => {
  temp = openTempStore(NOW);
});
afterEach(async () => {
  await temp.dispose();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite data versions', () => {
  it('sees this connection’s writes at once and another process’s within maxAgeMs', async () => {
    const read = createSqliteDataVersions(temp.store.db, 100);
    const first = read();
    // This process's own write: seen by the very next read.
    const account = await temp.store.accounts.createAccount(
      { email: 'a@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
      NOW,
    );
    const afterOwn = read();
    expect(afterOwn.auth).not.toBe(first.auth);
    expect(afterOwn.catalogue).toBe(first.catalogue);

    // Another process (the CLI) revokes access: seen once maxAgeMs has passed.
    const other = openSqliteStore({ path: temp.path, nowMs: NOW });
    try {
      await other.accounts.updateAccount(account.id, { disabled: true }, NOW);
      const started = performance.now();
      await expect.poll(() => read().auth, { interval: 5, timeout: 1_000 }).not.toBe(afterOwn.auth);
      expect(performance.now() - started).toBeLessThan(500);
    } finally {
      await other.close();
    }
  });

  it('answers from one check while maxAgeMs lasts, then checks again', async () => {
    const read = createSqliteDataVersions(temp.store.db, 1);
    const before = read();
    const other = openSqliteStore({ path: temp.path, nowMs: NOW });
    try {
      await other.accounts.createAccount(
        { email: 'b@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
        NOW,
      );
      await sleep(2);
      expect(read().auth).not.toBe(before.auth);
    } finally {
      await other.close();
    }
  });

  it('moves no version for key use and usage counts', async () => {
    const read = createSqliteDataVersions(temp.store.db, 0);
    const { accounts } = temp.store;
    const account = await accounts.createAccount(
      { email: 'c@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
      NOW,
    );
    const key = await accounts.createApiKey(
      { accountId: account.id, name: 'k', keyHash: 'h', prefix: 'p', lastFour: 'l' },
      NOW,
    );
    const before = read();
    await accounts.markKeysUsed([{ keyId: key.id, at: NOW + 1 }]);
    await accounts.addUsage([{ accountId: account.id, hourStart: 0, requests: 3, limited: 1 }]);
    expect(read()).toBe(before);
  });
});
