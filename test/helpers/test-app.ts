import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { issueApiKey } from '../../src/accounts/account-service.js';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLimiters } from '../../src/deps.js';
import type { Account, NewAccount } from '../../src/storage/types.js';
import { openTempStore, type TempStore } from './temp-store.js';

/** A moveable clock for tests. */
export class TestClock {
  constructor(public ms: number) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** An app built over a temp store and a test clock, with helpers to make accounts and keys. */
export interface TestApp {
  app: FastifyInstance;
  temp: TempStore;
  clock: TestClock;
  config: Config;
  createAccount(email: string, fields?: Partial<NewAccount>): Promise<Account>;
  createKey(account: Account, name?: string): Promise<string>;
  /** A verified account in its trial, with one key; its rate limit is raised unless given. */
  customer(
    email?: string,
    fields?: Partial<NewAccount>,
  ): Promise<{ account: Account; key: string }>;
  get(
    url: string,
    key?: string | null,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** 2026-08-22T10:30:00Z: a fixed "now" the schedule tests reason about. */
export const TEST_NOW = Date.UTC(2026, 7, 22, 10, 30, 0);

export async function createTestApp(
  env: Record<string, string> = {},
  startMs = TEST_NOW,
): Promise<TestApp> {
  const clock = new TestClock(startMs);
  const temp = openTempStore(startMs);
  const config = loadConfig({ DATABASE_URL: temp.path, ...env });
  const app = await buildApp({
    config,
    store: temp.store,
    now: clock.now,
    ...createLimiters(config, clock.now),
  });
  await app.ready();
  let counter = 0;

  const createAccount: TestApp['createAccount'] = (email, fields = {}) =>
    temp.store.accounts.createAccount(
      {
        email,
        verifiedAt: fields.verifiedAt === undefined ? clock.ms : fields.verifiedAt,
        accessUntil: fields.accessUntil ?? null,
        rateLimit: fields.rateLimit ?? null,
      },
      clock.ms,
    );
  const createKey: TestApp['createKey'] = async (account, name = 'test') =>
    (await issueApiKey(temp.store.accounts, account.id, name, clock.ms)).key;

  return {
    app,
    temp,
    clock,
    config,
    createAccount,
    createKey,
    async customer(email, fields) {
      counter += 1;
      const account = await createAccount(email ?? `customer${counter}@example.com`, {
        rateLimit: 10_000,
        ...fields,
      });
      return { account, key: await createKey(account) };
    },
    get(url, key, headers = {}) {
      return app.inject({
        method: 'GET',
        url,
        headers: key ? { authorization: `Bearer ${key}`, ...headers } : headers,
      });
    },
    inject: (options) => app.inject(options),
    async close() {
      await app.close();
      await temp.dispose();
    },
  };
}
