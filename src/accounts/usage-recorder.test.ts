import { describe, expect, it } from 'vitest';
import type { AccountStore, KeyUse, UsageCount } from '../storage/account-store.js';
import { createUsageRecorder } from './usage-recorder.js';

const HOUR = 3_600_000;
const coded = (code: string) => Object.assign(new Error(code), { code });

/** The two writes the recorder makes, failing with `failure` while it is set. */
function fakeAccounts() {
  const written = { uses: [] as KeyUse[], counts: [] as UsageCount[] };
  let failure: Error | null = null;
  const accounts = {
    async markKeysUsed(uses: readonly KeyUse[]) {
      if (failure !== null) throw failure;
      written.uses.push(...uses);
    },
    async addUsage(counts: readonly UsageCount[]) {
      if (failure !== null) throw failure;
      written.counts.push(...counts.map((c) => ({ ...c })));
    },
  } as unknown as AccountStore;
  return { accounts, written, fail: (error: Error | null) => (failure = error) };
}

function memoryLog() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      error: (_obj: object, msg: string) => lines.push(`error ${msg}`),
      warn: (_obj: object, msg: string) => lines.push(`warn ${msg}`),
    },
  };
}

describe('usage recorder', () => {
  it('keeps a batch the storage cannot take now (busy, unreachable) and writes it with the next', async () => {
    const { accounts, written, fail } = fakeAccounts();
    const { lines, log } = memoryLog();
    const usage = createUsageRecorder(accounts, { log, flushIntervalMs: 60_000 });
    usage.record('k1', 'a1', 10 * HOUR, false);
    usage.record('k1', 'a1', 10 * HOUR + 1, true);
    fail(coded('SQLITE_BUSY'));
    await usage.flush();
    usage.record('k2', 'a1', 10 * HOUR + 2, false);
    await usage.flush();
    expect(written).toEqual({ uses: [], counts: [] });
    fail(null);
    await usage.close();
    expect(written.uses).toEqual([
      { keyId: 'k1', at: 10 * HOUR },
      { keyId: 'k2', at: 10 * HOUR + 2 },
    ]);
    expect(written.counts).toEqual([
      { accountId: 'a1', hourStart: 10 * HOUR, requests: 3, limited: 1 },
    ]);
    // Said once when it starts waiting, once when it is through.
    expect(lines).toEqual([
      'warn key usage kept for later: storage busy or unavailable',
      'warn key usage written again',
    ]);
  });

  it('drops a batch that fails for any other reason, and says so', async () => {
    const { accounts, written, fail } = fakeAccounts();
    const { lines, log } = memoryLog();
    const usage = createUsageRecorder(accounts, { log, flushIntervalMs: 60_000 });
    usage.record('k1', 'a1', HOUR, false);
    fail(new Error('no such table: usage_hourly'));
    await usage.flush();
    fail(null);
    await usage.close();
    expect(written).toEqual({ uses: [], counts: [] });
    expect(lines).toEqual(['error writing key usage failed']);
  });
});
