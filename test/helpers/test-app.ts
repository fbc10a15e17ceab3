import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { issueApiKey } from '../../src/accounts/account-service.js';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createServices, type Services } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import type { Mailer, OutgoingMail } from '../../src/mail/types.js';
import type { Account } from '../../src/domain/account.js';
import type { NewAccount } from '../../src/storage/account-store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ENGINE, openEngineStore, type EngineStore } from './engines.js';

/** A moveable clock for tests. */
export class TestClock {
  constructor(public ms: number) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Mail the app sent, kept in memory (inject tests; the browser test uses real SMTP). */
export interface CapturedMail {
  sent: OutgoingMail[];
  mailer: Mailer;
}

export function captureMail(): CapturedMail {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    mailer: {
      async send(mail) {
        sent.push(mail);
      },
      async close() {},
    },
  };
}

/** An app built over a temp store and a test clock, with helpers to make accounts and keys. */
export interface TestApp {
  app: FastifyInstance;
  /** The store (on TEST_ENGINE), raw SQL under it, and a scratch folder (the outbox). */
  temp: EngineStore & { dir: string };
  clock: TestClock;
  config: Config;
  services: Services;
  /** Mail the app sent. */
  mail: OutgoingMail[];
  /** Every log line the app wrote, as text. */
  logs(): string;
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
  /** Send mail as configured (SMTP_URL or the outbox) instead of capturing it. */
  options: { realMailer?: boolean } = {},
): Promise<TestApp> {
  const clock = new TestClock(startMs);
  const dir = mkdtempSync(join(tmpdir(), 'onair-app-'));
  const temp = { ...(await openEngineStore(TEST_ENGINE, startMs)), dir };
  const config = loadConfig({
    DATABASE_URL: temp.databaseUrl,
    OUTBOX_DIR: join(dir, 'outbox'),
    ...env,
  });
  let logText = '';
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logText += chunk.toString('utf8');
        done();
      },
    }),
  );
  const services = await createServices(config, temp.store, logger, clock.now);
  const mail = captureMail();
  const app = await buildApp(
    {
      config,
      store: temp.store,
      now: clock.now,
      ...services,
      mailer: options.realMailer ? services.mailer : mail.mailer,
    },
    logger,
  );
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
    services,
    mail: mail.sent,
    logs: () => logText,
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
      await services.close();
      await temp.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers a fixture in the calling describe: set up before and torn down after each of its
 * tests (`each`), or once for all of them (`all`), where the tests only read. An app over a
 * fresh store costs 0.4-0.9 s (a database copied on PostgreSQL; docs/testing.md), so a file
 * whose tests mostly read shares one and gives those that write their own.
 */
export function registerFixture(
  scope: 'each' | 'all',
  setUp: () => Promise<void>,
  tearDown: () => Promise<void>,
): void {
  (scope === 'each' ? beforeEach : beforeAll)(setUp);
  (scope === 'each' ? afterEach : afterAll)(tearDown);
}
