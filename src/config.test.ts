import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, PROJECT_ROOT, redactConnectionUrl } from './config.js';

describe('config', () => {
  it('has working defaults and is frozen', () => {
    const config = loadConfig({}, '/somewhere');
    expect(config).toMatchObject({
      database: { engine: 'sqlite', path: resolve(PROJECT_ROOT, 'data/onair.db') },
      host: '127.0.0.1',
      port: 8080,
      publicUrl: 'http://127.0.0.1:8080',
      redisUrl: null,
      retentionDays: null,
      changesRetentionDays: 30,
      shutdownTimeoutMs: 30_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.database)).toBe(true);
  });

  it('reads SQLite paths, sqlite: URLs and postgres URLs', () => {
    expect(loadConfig({ DATABASE_URL: 'x/y.db' }, '/w').database).toEqual({
      engine: 'sqlite',
      path: '/w/x/y.db',
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/a.db' }, '/w').database).toEqual({
      engine: 'sqlite',
      path: '/tmp/a.db',
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:///tmp/a.db' }, '/w').database).toEqual({
      engine: 'sqlite',
      path: '/tmp/a.db',
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database).toEqual({
      engine: 'postgres',
      url: 'postgres://u@h/db',
    });
  });

  it('limits the playground per client address, 60 a minute unless PLAYGROUND_LIMIT says', () => {
    expect(loadConfig({})).toMatchObject({ playgroundLimit: 60, playgroundWindowMs: 60_000 });
    expect(loadConfig({ PLAYGROUND_LIMIT: '5' }).playgroundLimit).toBe(5);
    expect(() => loadConfig({ PLAYGROUND_LIMIT: '0' })).toThrow(
      'PLAYGROUND_LIMIT must be an integer from 1 to 1000000, got "0"',
    );
  });

  it('trusts no proxy, the one in front, or the listed ones (TRUST_PROXY)', () => {
    expect(loadConfig({}).trustProxy).toEqual({ kind: 'none' });
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toEqual({ kind: 'none' });
    expect(loadConfig({ TRUST_PROXY: 'TRUE' }).trustProxy).toEqual({ kind: 'nearest' });
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toEqual({ kind: 'nearest' });
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,loopback' }).trustProxy).toEqual({
      kind: 'listed',
      addresses: ['127.0.0.1', '10.0.0.0/8', 'loopback'],
    });
    for (const bad of ['yes', '10.0.0.0/99', '127.0.0.1,,10.0.0.1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(
        /^TRUST_PROXY must be true, false or the proxies' addresses/,
      );
    }
  });

  it('asks /metrics for a token only when METRICS_TOKEN is set, and refuses a guessable one', () => {
    expect(loadConfig({}).metricsToken).toBeNull();
    const token = 'f3a9c2d1e8b7a6f5e4d3c2b1';
    expect(loadConfig({ METRICS_TOKEN: ` ${token} ` }).metricsToken).toBe(token);
    for (const bad of ['short-token', 'sixteen chars ok but spaced']) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(
        'METRICS_TOKEN must be at least 16 printable characters without spaces',
      );
      // The refused value is a secret: the message never repeats it.
      expect(() => loadConfig({ METRICS_TOKEN: bad })).not.toThrow(bad);
    }
  });

  it('takes PUBLIC_URL without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe(
      'https://api.example.com',
    );
  });

  it('reads SHUTDOWN_TIMEOUT in seconds', () => {
    expect(loadConfig({ SHUTDOWN_TIMEOUT: '5' }).shutdownTimeoutMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT: '0' }).shutdownTimeoutMs).toBe(0);
  });

  it('logs JSON unless stdout is a terminal; LOG_FORMAT overrides either way', () => {
    const tty = { stdoutIsTty: true };
    const pipe = { stdoutIsTty: false };
    expect(loadConfig({}, '/w').logFormat).toBe('json');
    expect(loadConfig({}, '/w', pipe).logFormat).toBe('json');
    expect(loadConfig({}, '/w', tty).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'auto' }, '/w', tty).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'JSON' }, '/w', tty).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }, '/w', pipe).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'text' })).toThrow(
      'LOG_FORMAT must be json, pretty or auto, got "text"',
    );
  });

  it('allows no cross-origin callers unless CORS_ORIGINS names them, or * for any', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: ' ' }).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*');
    // Kept as browsers send `Origin`: lower-case host, no default port, no trailing slash.
    expect(
      loadConfig({
        CORS_ORIGINS: 'https://App.Example.com/, http://localhost:5173,,https://x.example:443',
      }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173', 'https://x.example']);
    expect(Object.isFrozen(loadConfig({ CORS_ORIGINS: 'https://a.example' }).corsOrigins)).toBe(
      true,
    );
  });

  it.each([
    'https://*.example.com',
    '*,https://a.example',
    'https://a.example/app',
    'https://a.example?x=1',
    'https://a.example#top',
    'https://user@a.example',
    'ftp://a.example',
    'a.example',
    'null',
  ])('refuses CORS_ORIGINS=%s in one line naming the setting', (value) => {
    const attempt = () => loadConfig({ CORS_ORIGINS: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^CORS_ORIGINS must be \* or comma-separated origins [^\n]*$/);
  });

  it.each([
    [{ SHUTDOWN_TIMEOUT: '-1' }, /SHUTDOWN_TIMEOUT/],
    [{ SHUTDOWN_TIMEOUT: '2.5' }, /SHUTDOWN_TIMEOUT/],
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ PUBLIC_URL: 'ftp://x' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'not a url' }, /PUBLIC_URL/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
    [{ RETENTION_DAYS: '30' }, /RETENTION_DAYS/],
    [{ CHANGES_RETENTION_DAYS: '0' }, /CHANGES_RETENTION_DAYS/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'file:./data/onair.db' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'postgresql:/db.internal/onair' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'sqlite//data/onair.db' }, /DATABASE_URL/],
    [{ WEBHOOK_ALLOW_HTTP: 'maybe' }, /WEBHOOK_ALLOW_HTTP/],
    [{ WEBHOOK_RETRY_BASE_SECONDS: '0' }, /WEBHOOK_RETRY_BASE_SECONDS/],
    [{ WEBHOOK_TIMEOUT_SECONDS: '61' }, /WEBHOOK_TIMEOUT_SECONDS/],
    [{ WEBHOOK_DELIVERY: 'sometimes' }, /WEBHOOK_DELIVERY/],
  ])('refuses %j with a message naming the variable', (env, pattern) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(pattern);
  });

  /** The ConfigError `env` gives. */
  function refusal(env: Record<string, string>): string {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  }

  it('quotes a refused DATABASE_URL or REDIS_URL with its password and secret parameters masked', () => {
    expect(refusal({ DATABASE_URL: 'postgress://onair:Sup3rSecret@db.internal:5432/onair' })).toBe(
      'DATABASE_URL must be a SQLite file path, sqlite:PATH or postgres://…, got "postgress://onair:***@db.internal:5432/onair"',
    );
    expect(
      refusal({
        DATABASE_URL: 'mysql://onair:Sup3rSecret@db/onair?Password=Sup3rSecret&sslmode=require',
      }),
    ).toMatch(/got "mysql:\/\/onair:\*\*\*@db\/onair\?Password=\*\*\*&sslmode=require"$/);
    // A missing or mistyped colon: taken as a path, it made directories named after the
    // password. The typo shows, the password does not.
    expect(refusal({ DATABASE_URL: 'postgres//onair:Sup3rSecret@db.internal/onair' })).toBe(
      'DATABASE_URL must be a SQLite file path, sqlite:PATH or postgres://…, got "postgres//onair:***@db.internal/onair"',
    );
    expect(refusal({ DATABASE_URL: 'postgres;//onair:Sup3rSecret@db.internal/onair' })).toBe(
      'DATABASE_URL must be a SQLite file path, sqlite:PATH or postgres://…, got "postgres;//onair:***@db.internal/onair"',
    );
    // A user without a password may be a token itself: it goes too.
    expect(refusal({ DATABASE_URL: 'postgres//T0kenSecret@db.internal/onair' })).toMatch(
      /got "postgres\/\/\*\*\*@db\.internal\/onair"$/,
    );
    expect(refusal({ REDIS_URL: 'http://:R3disSecret@cache:6379' })).toBe(
      'REDIS_URL must start with redis:// or rediss://, got "http://:***@cache:6379"',
    );
    expect(refusal({ REDIS_URL: 'tcp://cache:6379/0?token=R3disSecret&db=0' })).toMatch(
      /got "tcp:\/\/cache:6379\/0\?token=\*\*\*&db=0"$/,
    );
    expect(refusal({ SMTP_URL: 'smtp//mailer:M4ilSecret@mail.example:587' })).toBe(
      'SMTP_URL must start with smtp:// or smtps://, got "smtp//mailer:***@mail.example:587"',
    );
    expect(refusal({ REDIS_URL: 'rediss//:R3disSecret@cache:6380' })).toBe(
      'REDIS_URL must start with redis:// or rediss://, got "rediss//:***@cache:6380"',
    );
  });

  it('refuses an SMTP_URL or REDIS_URL its client would misread, naming it, its password masked', () => {
    const hint =
      'is not a valid URL (a port of 1 to 65535; in a user name or password, write # as %23, / as %2F, ? as %3F, @ as %40)';
    // A raw # / ? in the password ends the host part: the URL does not parse (nodemailer then
    // printed it whole in a warning), or parses as another host (u, port 1234).
    for (const [name, raw, shown] of [
      [
        'SMTP_URL',
        'smtp://mailer:Ab#M4ilSecret@mail.example:587',
        'smtp://mailer:***@mail.example:587',
      ],
      [
        'SMTP_URL',
        'smtp://mailer:Ab/M4ilSecret@mail.example:587',
        'smtp://mailer:***@mail.example:587',
      ],
      ['SMTP_URL', 'smtps://u:1234?M4ilSecret@mail.example', 'smtps://u:***@mail.example'],
      [
        'SMTP_URL',
        'smtp://mailer:M4ilSecret@mail.example:99999',
        'smtp://mailer:***@mail.example:99999',
      ],
      ['REDIS_URL', 'redis://:R3dis#Secret@cache:6379/9', 'redis://:***@cache:6379/9'],
      ['REDIS_URL', 'redis://:R3disSecret@cache:abc/9', 'redis://:***@cache:abc/9'],
      ['REDIS_URL', 'redis://:R3disSecret@cache:0/9', 'redis://:***@cache:0/9'],
    ] as const) {
      expect(refusal({ [name]: raw })).toBe(`${name} ${hint}, got "${shown}"`);
    }
    // Percent-encoded, the same passwords are fine; the URL is kept as given.
    expect(loadConfig({ SMTP_URL: 'smtp://mailer:Ab%23M4il@mail.example:587' }).smtpUrl).toBe(
      'smtp://mailer:Ab%23M4il@mail.example:587',
    );
    for (const fine of [
      'redis://:R3dis@cache:6379/9',
      'redis://:@cache:6379',
      'redis://[::1]:6379/2',
      'rediss://default:R3dis@cache:6380/0?family=6',
    ]) {
      expect(loadConfig({ REDIS_URL: fine }).redisUrl).toBe(fine);
    }
    expect(loadConfig({ SMTP_URL: 'smtp://mailer@mail.example/?pool=true' }).smtpUrl).toBe(
      'smtp://mailer@mail.example/?pool=true',
    );
  });

  it('takes LOG_LEVEL in any case, and refuses another word naming the levels', () => {
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(refusal({ LOG_LEVEL: 'loud' })).toBe(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    );
  });

  it.each([
    ['postgres://onair:Sup3rSecret@db:5432/onair', 'postgres://onair:***@db:5432/onair'],
    [
      'postgres://postgres@db/onair?password=Sup3rSecret&application_name=x',
      'postgres://postgres@db/onair?password=***&application_name=x',
    ],
    [
      'postgres://u@db/onair?application_name=x&pwd=Sup3rSecret&secret=Sup3rSecret&key=Sup3rSecret&pass=Sup3rSecret',
      'postgres://u@db/onair?application_name=x&pwd=***&secret=***&key=***&pass=***',
    ],
    // A raw / or ? in the password (it should be percent-encoded) still goes.
    ['postgres://onair:Sup/3rSecret@db/onair', 'postgres://onair:***@db/onair'],
    ['redis://:Sup?3rSecret@cache:6379', 'redis://:***@cache:6379'],
    // With a raw @ before the raw ?, the part after the @ is password too.
    ['postgres://onair:Sup@3r?Secret@db/onair', 'postgres://onair:***@db/onair'],
    // An @ in a query value: more is hidden than the password, never less.
    ['postgres://onair:Sup3rSecret@db/onair?application_name=a@b', 'postgres://onair:***@b'],
    ['postgres://db:5432/onair?application_name=x', 'postgres://db:5432/onair?application_name=x'],
    ['/var/lib/onair/a:b@c.db', '/var/lib/onair/a:b@c.db'],
  ])('redactConnectionUrl(%s) is %s', (raw, shown) => {
    expect(redactConnectionUrl(raw)).toBe(shown);
  });

  it('sends webhooks to https and public addresses only, unless WEBHOOK_ALLOW_* say otherwise', () => {
    expect(loadConfig({}).webhooks).toEqual({
      delivery: true,
      allowHttp: false,
      allowPrivate: false,
      retryBaseMs: 30_000,
      checkMs: 5_000,
      timeoutMs: 10_000,
    });
    expect(
      loadConfig({
        WEBHOOK_DELIVERY: 'off',
        WEBHOOK_ALLOW_HTTP: '1',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_SECONDS: '1',
        WEBHOOK_CHECK_SECONDS: '2',
        WEBHOOK_TIMEOUT_SECONDS: '3',
      }).webhooks,
    ).toEqual({
      delivery: false,
      allowHttp: true,
      allowPrivate: true,
      retryBaseMs: 1_000,
      checkMs: 2_000,
      timeoutMs: 3_000,
    });
    expect(Object.isFrozen(loadConfig({}).webhooks)).toBe(true);
  });
});
