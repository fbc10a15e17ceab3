import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithoutDatabase, openCliSandbox, type EngineCliSandbox } from '../helpers/cli-runner.js';
import { CATALOGUE_SCHEMA_VERSION } from '../../src/storage/sqlite/catalogue-file.js';
import { TEST_ENGINE, freshPostgresDatabase } from '../helpers/engines.js';

// On the vitest project's engine: a SQLite file, or a fresh PostgreSQL database.
let cli: EngineCliSandbox;

beforeAll(async () => {
  cli = await openCliSandbox();
});

afterAll(async () => {
  await cli.dispose();
});

/** A new, empty database on the engine under test: a file in the sandbox, or on PostgreSQL. */
async function newDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (TEST_ENGINE === 'postgres') return freshPostgresDatabase();
  return { url: join(cli.dir, `${name}.db`), drop: async () => {} };
}

/** Runs one statement on the database at `url` from outside Onair, as an operator could. */
async function runSql(url: string, text: string): Promise<void> {
  if (TEST_ENGINE === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(url);
  try {
    db.prepare(text).run();
  } finally {
    db.close();
  }
}

interface AccountJson {
  id: string;
  email: string;
  verified: boolean;
  verifiedAt: string | null;
  trialEndsAt: string | null;
  accessUntil: string | null;
  effectiveUntil: string | null;
  eligibleNow: boolean;
  refusal: string | null;
  rateLimit: number;
  disabled: boolean;
  keys?: { id: string; name: string; status: string; prefix: string; lastFour: string }[];
}

describe('bin/onair --help', () => {
  itWithoutDatabase('every command and sub-command has help', async () => {
    for (const args of [
      [],
      ['serve'],
      ['ingest'],
      ['accounts'],
      ['accounts', 'create'],
      ['accounts', 'grant'],
      ['accounts', 'set'],
      ['accounts', 'list'],
      ['accounts', 'show'],
      ['keys'],
      ['keys', 'create'],
      ['keys', 'list'],
      ['keys', 'revoke'],
      ['migrate'],
    ]) {
      const result = await cli.run([...args, '--help']);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: onair/);
    }
  });

  itWithoutDatabase('prints the version of package.json', async () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    );
    const result = await cli.run(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
  });
});

describe('accounts', () => {
  it('creates a verified account whose 7-day trial starts now', async () => {
    const before = Date.now();
    const account = await cli.json<AccountJson>([
      'accounts',
      'create',
      '--email',
      'Ann@Example.com',
      '--verified',
    ]);
    expect(account).toMatchObject({
      email: 'Ann@Example.com',
      verified: true,
      eligibleNow: true,
      rateLimit: 3,
    });
    const verifiedAt = Date.parse(account.verifiedAt ?? '');
    expect(verifiedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(account.trialEndsAt ?? '')).toBe(verifiedAt + 7 * 86_400_000);
  });

  it('refuses a second account for the same address (any case), with exit 1 and one line', async () => {
    const result = await cli.run(['accounts', 'create', '--email', 'ann@example.COM']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/already exists/);
  });

  it('creates unverified, back-dated and paid accounts', async () => {
    const unverified = await cli.json<AccountJson>([
      'accounts',
      'create',
      '--email',
      'bob@example.com',
    ]);
    expect(unverified).toMatchObject({
      verified: false,
      eligibleNow: false,
      refusal: 'EMAIL_NOT_VERIFIED',
    });

    const expired = await cli.json<AccountJson>([
      'accounts',
      'create',
      '--email',
      'old@example.com',
      '--verified-at',
      '2020-01-01T00:00:00Z',
    ]);
    expect(expired).toMatchObject({
      trialEndsAt: '2020-01-08T00:00:00.000Z',
      eligibleNow: false,
      refusal: 'ACCESS_EXPIRED',
    });

    const paid = await cli.json<AccountJson>([
      'accounts',
      'create',
      '--email',
      'paid@example.com',
      '--verified-at',
      '2020-01-01',
      '--access-until',
      '2099-01-01',
      '--rate-limit',
      '50',
    ]);
    expect(paid).toMatchObject({
      accessUntil: '2099-01-01T00:00:00.000Z',
      effectiveUntil: '2099-01-01T00:00:00.000Z',
      eligibleNow: true,
      rateLimit: 50,
    });
  });

  it('verifies an account made unverified: the trial starts then, and only once', async () => {
    await cli.json<AccountJson>(['accounts', 'create', '--email', 'vera@example.com']);
    const verified = await cli.json<AccountJson>([
      'accounts',
      'set',
      '--email',
      'vera@example.com',
      '--verified',
    ]);
    expect(verified).toMatchObject({ verified: true, eligibleNow: true });
    const again = await cli.json<AccountJson>([
      'accounts',
      'set',
      '--email',
      'vera@example.com',
      '--verified',
    ]);
    expect(again.trialEndsAt).toBe(verified.trialEndsAt);
    const shown = await cli.run(['accounts', 'show', '--email', 'vera@example.com']);
    expect(shown.stdout.match(/account\.changed .*"verifiedAt":\{[^}]*"from":null/g)).toHaveLength(
      1,
    );
  });

  it('changes access_until, the rate limit and the disabled flag', async () => {
    let account = await cli.json<AccountJson>([
      'accounts',
      'set',
      '--email',
      'old@example.com',
      '--access-until',
      '2099-06-30T12:00:00Z',
      '--rate-limit',
      '10',
    ]);
    expect(account).toMatchObject({
      eligibleNow: true,
      accessUntil: '2099-06-30T12:00:00.000Z',
      rateLimit: 10,
    });
    account = await cli.json<AccountJson>([
      'accounts',
      'set',
      '--email',
      'old@example.com',
      '--disabled',
      'true',
    ]);
    expect(account).toMatchObject({
      disabled: true,
      eligibleNow: false,
      refusal: 'ACCOUNT_DISABLED',
    });
    account = await cli.json<AccountJson>([
      'accounts',
      'set',
      '--email',
      'old@example.com',
      '--disabled',
      'false',
      '--access-until',
      'none',
      '--rate-limit',
      'default',
    ]);
    expect(account).toMatchObject({
      disabled: false,
      accessUntil: null,
      rateLimit: 3,
      refusal: 'ACCESS_EXPIRED',
    });
  });

  it('lists accounts and shows one in plain words', async () => {
    const list = await cli.json<AccountJson[]>(['accounts', 'list']);
    expect(list.map((a) => a.email)).toEqual([
      'Ann@Example.com',
      'bob@example.com',
      'old@example.com',
      'paid@example.com',
      'vera@example.com',
    ]);
    const shown = await cli.run(['accounts', 'show', '--email', 'paid@example.com']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/trial ends\s+2020-01-08T00:00:00.000Z/);
    expect(shown.stdout).toMatch(/API access now\s+yes, until 2099-01-01T00:00:00.000Z/);
  });

  // Exit 2 is commander's, before any command opens the database.
  itWithoutDatabase('answers bad options with exit 2', async () => {
    for (const args of [
      ['accounts', 'create', '--email', 'not-an-address'],
      ['accounts', 'create', '--email', 'x@example.com', '--verified-at', 'yesterday'],
      ['accounts', 'create', '--email', 'x@example.com', '--rate-limit', '0'],
      ['accounts', 'set', '--email', 'ann@example.com', '--disabled', 'maybe'],
      ['accounts', 'create'],
      ['accounts', 'frobnicate'],
    ]) {
      const result = await cli.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/error/);
    }
  });

  // The message names the allowed range, not only "1 or more": 10,000,000 is a whole number.
  itWithoutDatabase('names the allowed range of a rate limit', async () => {
    for (const value of ['0', '10000000', '2.5']) {
      const result = await cli.run([
        'accounts',
        'create',
        '--email',
        'x@example.com',
        '--rate-limit',
        value,
      ]);
      expect(result.code, value).toBe(2);
      expect(result.stderr).toContain(
        `"${value}" is not a whole number of requests per second from 1 to 1000000`,
      );
    }
  });

  it('answers unknown accounts with exit 1, nothing to change with 2', async () => {
    const unknown = await cli.run(['accounts', 'show', '--email', 'nobody@example.com']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('onair: error: no account with e-mail nobody@example.com\n');
    // Nothing to change is a usage error, as a missing option is.
    const nothing = await cli.run(['accounts', 'set', '--email', 'ann@example.com']);
    expect(nothing).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'onair: error: nothing to change: give --verified, --access-until, --rate-limit or --disabled (see bin/onair accounts set --help)\n',
    });
  });
});

describe('keys', () => {
  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    const created = await cli.json<{
      id: string;
      key: string;
      name: string;
      prefix: string;
      lastFour: string;
      createdAt: string;
    }>(['keys', 'create', '--email', 'ann@example.com', '--name', 'production']);
    expect(created.key).toMatch(/^onair_[0-9A-Za-z]{38}$/);
    expect(created).toMatchObject({
      name: 'production',
      prefix: created.key.slice(0, 10),
      lastFour: created.key.slice(-4),
    });

    const listed = await cli.run(['keys', 'list', '--email', 'ann@example.com', '--json']);
    expect(listed.stdout).not.toContain(created.key);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id: created.id,
        name: 'production',
        status: 'active',
        revokedAt: null,
      }),
    ]);
    // As text, with when it was last used (never, here: no server saw it).
    expect((await cli.run(['keys', 'list', '--email', 'ann@example.com'])).stdout).toBe(
      `${created.id}  ${created.prefix}…${created.lastFour}  "production"  created ${created.createdAt}  never used\n`,
    );
    const shown = await cli.run(['accounts', 'show', '--email', 'ann@example.com', '--json']);
    expect(shown.stdout).not.toContain(created.key);
    expect((JSON.parse(shown.stdout) as AccountJson).keys).toHaveLength(1);

    const revoked = await cli.json<{ status: string }>(['keys', 'revoke', '--id', created.id]);
    expect(revoked.status).toBe('revoked');
    const after = await cli.json<{ status: string }[]>([
      'keys',
      'list',
      '--email',
      'ann@example.com',
    ]);
    expect(after[0]?.status).toBe('revoked');
  });

  it('prints the key on its own line without --json', async () => {
    const result = await cli.run(['keys', 'create', '--email', 'bob@example.com']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^onair_[0-9A-Za-z]{38}$/);
  });

  it('refuses an unknown key id or account', async () => {
    expect((await cli.run(['keys', 'revoke', '--id', 'nope'])).code).toBe(1);
    expect((await cli.run(['keys', 'create', '--email', 'nobody@example.com'])).code).toBe(1);
  });
});

describe('migrate and configuration', () => {
  it('reports the schema version and is idempotent', async () => {
    const first = await cli.json<{ version: number; applied: unknown[] }>(['migrate']);
    expect(first.version).toBeGreaterThanOrEqual(1);
    expect(first.applied).toEqual([]); // earlier commands already migrated this database
    const other = await newDatabase('other');
    try {
      const fresh = await cli.run(['migrate', '--json'], { DATABASE_URL: other.url });
      expect(JSON.parse(fresh.stdout).applied.length).toBeGreaterThanOrEqual(1);
    } finally {
      await other.drop();
    }
  });

  it('commands started together on a new database all find it ready', async () => {
    const fresh = await newDatabase('fresh');
    try {
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          cli.run(['migrate', '--json'], { DATABASE_URL: fresh.url }),
        ),
      );
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      // Migrated once: one of them applied every step, the others found nothing to do.
      const applied = results.map((r) => (JSON.parse(r.stdout) as { applied: unknown[] }).applied);
      expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
    } finally {
      await fresh.drop();
    }
  });

  it.runIf(TEST_ENGINE === 'sqlite')(
    "reports the SQLite catalogue file's own version, made or up to date",
    async () => {
      const path = `${cli.dir}/versions.db`;
      const file = `${cli.dir}/versions.catalogue.db`;
      const made = await cli.run(['migrate'], { DATABASE_URL: path });
      expect(made.stdout).toMatch(
        new RegExp(`\\nCatalogue file ${file} made, at version ${CATALOGUE_SCHEMA_VERSION}\\.\\n$`),
      );
      const again = await cli.run(['migrate', '--json'], { DATABASE_URL: path });
      expect(JSON.parse(again.stdout)).toMatchObject({
        applied: [],
        catalogue: { file, from: CATALOGUE_SCHEMA_VERSION, version: CATALOGUE_SCHEMA_VERSION },
      });
      const text = await cli.run(['migrate'], { DATABASE_URL: path });
      expect(text.stdout.split('\n')[1]).toBe(
        `Catalogue file ${file} is up to date (version ${CATALOGUE_SCHEMA_VERSION}).`,
      );
    },
  );

  // SQLite keeps the catalogue in a file of its own beside the main one.
  it.runIf(TEST_ENGINE === 'sqlite')(
    'commands started together make both SQLite files, and a lost catalogue file comes back',
    async () => {
      const path = `${cli.dir}/together.db`;
      const together = (args: string[]) =>
        Promise.all(Array.from({ length: 4 }, () => cli.run(args, { DATABASE_URL: path })));
      for (const result of await together(['migrate'])) expect(result.code, result.stderr).toBe(0);
      expect(existsSync(`${cli.dir}/together.catalogue.db`)).toBe(true);
      // A lost catalogue file comes back (empty) for commands started together too.
      for (const suffix of ['', '-wal', '-shm'])
        rmSync(`${cli.dir}/together.catalogue.db${suffix}`, { force: true });
      for (const result of await together(['channels', 'list']))
        expect(result.code, result.stderr).toBe(0);
    },
  );

  // The password is part of a PostgreSQL URL only.
  it.runIf(TEST_ENGINE === 'postgres')(
    'migrates a PostgreSQL database too, without showing its password',
    async () => {
      const database = await freshPostgresDatabase();
      try {
        const url = new URL(database.url);
        url.password = 'secret-pw';
        const first = await cli.run(['migrate', '--json'], { DATABASE_URL: url.href });
        expect(first.code, first.stderr).toBe(0);
        const result = JSON.parse(first.stdout) as { version: number; applied: unknown[] };
        expect(result.applied.length).toBe(result.version);
        expect(first.stdout).not.toContain('secret-pw');
        const again = await cli.run(['migrate'], { DATABASE_URL: url.href });
        expect(again.stdout).toMatch(/is up to date \(version \d+\)/);
      } finally {
        await database.drop();
      }
    },
  );

  itWithoutDatabase('a bad configuration value stops with one line naming it', async () => {
    const result = await cli.run(['accounts', 'list'], { PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'onair: configuration error: PORT must be an integer from 0 to 65535, got "eighty"\n',
    );
  });

  it('refuses a database from a newer Onair', async () => {
    const future = await newDatabase('future');
    try {
      await cli.run(['migrate'], { DATABASE_URL: future.url });
      await runSql(
        future.url,
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)",
      );
      const result = await cli.run(['accounts', 'list'], { DATABASE_URL: future.url });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/schema is version 999.*upgrade Onair/);
    } finally {
      await future.drop();
    }
  });
});

describe('accounts grant and the audit trail', () => {
  let audited: EngineCliSandbox;
  beforeAll(async () => {
    audited = await openCliSandbox();
  });
  afterAll(() => audited.dispose());

  it('grant sets access_until: in the future the account is eligible, in the past it is not', async () => {
    await audited.json(['accounts', 'create', '--email', 'payer@example.com']);
    let account = await audited.json<AccountJson>([
      'accounts',
      'grant',
      '--email',
      'payer@example.com',
      '--until',
      '2099-12-31',
    ]);
    expect(account).toMatchObject({
      accessUntil: '2099-12-31T00:00:00.000Z',
      eligibleNow: false, // never verified: the address must be confirmed first
      refusal: 'EMAIL_NOT_VERIFIED',
    });
    await audited.json([
      'accounts',
      'create',
      '--email',
      'old@example.com',
      '--verified-at',
      '2020-01-01',
    ]);
    account = await audited.json<AccountJson>([
      'accounts',
      'grant',
      '--email',
      'old@example.com',
      '--until',
      '2099-01-01',
    ]);
    expect(account).toMatchObject({
      eligibleNow: true,
      effectiveUntil: '2099-01-01T00:00:00.000Z',
    });
    // A time past ends paid access, and a note says so (a year typed wrong, as a rule).
    const past = await audited.run([
      ...['accounts', 'grant', '--email', 'old@example.com'],
      ...['--until', '2021-01-01', '--json'],
    ]);
    expect(past.code).toBe(0);
    expect(past.stderr).toBe(
      'onair: note: 2021-01-01T00:00:00.000Z has passed, so the account has no paid access now\n',
    );
    account = JSON.parse(past.stdout) as AccountJson;
    expect(account).toMatchObject({ eligibleNow: false, refusal: 'ACCESS_EXPIRED' });

    const missing = await audited.run(['accounts', 'grant', '--email', 'old@example.com']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--until/);
    const unknown = await audited.run([
      'accounts',
      'grant',
      '--email',
      'who@example.com',
      '--until',
      '2099-01-01',
    ]);
    expect(unknown.code).toBe(1);
  });

  it('accounts show lists every operator change, and never a key secret', async () => {
    await audited.json([
      'accounts',
      'create',
      '--email',
      'trail@example.com',
      '--verified',
      '--rate-limit',
      '5',
    ]);
    await audited.json([
      'accounts',
      'set',
      '--email',
      'trail@example.com',
      '--rate-limit',
      '8',
      '--disabled',
      'true',
    ]);
    await audited.json(['accounts', 'set', '--email', 'trail@example.com', '--rate-limit', '8']); // no change
    await audited.json([
      'accounts',
      'grant',
      '--email',
      'trail@example.com',
      '--until',
      '2099-06-30T12:00:00Z',
    ]);
    const key = await audited.json<{ id: string; key: string }>([
      'keys',
      'create',
      '--email',
      'trail@example.com',
      '--name',
      'ci',
    ]);
    await audited.json(['keys', 'revoke', '--id', key.id]);
    await audited.json(['keys', 'revoke', '--id', key.id]); // already revoked: nothing new

    const shown = await audited.json<
      AccountJson & { audit: { actor: string; action: string; details: unknown }[] }
    >(['accounts', 'show', '--email', 'trail@example.com']);
    expect(shown.audit.map((e) => [e.actor, e.action])).toEqual([
      ['operator', 'account.created'],
      ['operator', 'account.changed'],
      ['operator', 'access.granted'],
      ['operator', 'key.created'],
      ['operator', 'key.revoked'],
    ]);
    expect(shown.audit[0]?.details).toEqual({
      verifiedAt: shown.verifiedAt,
      accessUntil: null,
      rateLimit: 5,
    });
    expect(shown.audit[1]?.details).toEqual({
      rateLimit: { from: 5, to: 8 },
      disabled: { from: false, to: true },
    });
    expect(shown.audit[2]?.details).toEqual({ from: null, to: '2099-06-30T12:00:00.000Z' });
    expect(shown.audit[3]?.details).toEqual({ keyId: key.id, name: 'ci' });

    const text = await audited.run(['accounts', 'show', '--email', 'trail@example.com']);
    expect(text.stdout).toMatch(/audit\n.*operator\s+account\.created/);
    expect(text.stdout).toMatch(/operator\s+access\.granted/);
    for (const output of [text.stdout, JSON.stringify(shown)]) {
      expect(output).not.toContain(key.key);
      expect(output).not.toContain(key.key.slice(10, -4));
    }
  });
});
