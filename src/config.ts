import proxyAddr from '@fastify/proxy-addr';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_FEED_FETCH_LIMIT } from './domain/feed.js';
import { DEFAULT_WEBHOOK_RETRY_BASE_MS, DEFAULT_WEBHOOK_TIMEOUT_MS } from './domain/webhook.js';

/** Where the project lives; the default database sits under it whatever the working directory. */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * The web origins whose pages may call the API from a browser (CORS): every origin (`*`), or
 * these, each as `scheme://host[:port]` in its normal form. Empty: none, no CORS headers at all.
 */
export type CorsOrigins = '*' | readonly string[];

export type DatabaseConfig =
  { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

/** Everything the process is configured with, parsed once at start-up. */
export interface Config {
  readonly database: DatabaseConfig;
  /** False when DATABASE_URL was not given and `database` is the default SQLite file. */
  readonly databaseExplicit: boolean;
  readonly redisUrl: string | null;
  /** Namespace of this deployment's keys in Redis (a test run uses its own). */
  readonly redisKeyPrefix: string;
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string;
  /** False when PUBLIC_URL was not given and `publicUrl` is derived from HOST and PORT. */
  readonly publicUrlExplicit: boolean;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** Where mail goes when no SMTP_URL is set (and where mail SMTP refused is kept). */
  readonly outboxDir: string;
  readonly retentionDays: number | null;
  /** Days the change log keeps its records (`/api/v1/changes`, webhooks). */
  readonly changesRetentionDays: number;
  /** Which reverse proxies' `X-Forwarded-For` entries to believe (TRUST_PROXY). */
  readonly trustProxy: TrustedProxies;
  readonly logLevel: string;
  /** JSON lines, or short coloured lines for a person at a terminal (LOG_FORMAT, else the TTY). */
  readonly logFormat: LogFormat;
  /** Failed-auth requests allowed per client IP per `authFailureWindowMs`. */
  readonly authFailureLimit: number;
  readonly authFailureWindowMs: number;
  /** Playground requests allowed per client IP per `playgroundWindowMs`. */
  readonly playgroundLimit: number;
  readonly playgroundWindowMs: number;
  /** Fetches allowed per guide feed per hour (FEED_WINDOW_MS), apart from the API's budget. */
  readonly feedFetchLimit: number;
  /** Whether `serve` refreshes guide sources on their schedule. */
  readonly sourceRefresh: boolean;
  /** How often `serve` looks for due sources. */
  readonly sourceCheckMs: number;
  /** Longest time one guide download may take. */
  readonly sourceTimeoutMs: number;
  /** Largest guide a source may download. */
  readonly sourceMaxBytes: number;
  /** How long a shutdown waits for responses in flight before cutting their connections. */
  readonly shutdownTimeoutMs: number;
  /** Longest a client may take to send a whole request, headers and body (then 408). */
  readonly requestTimeoutMs: number;
  /** Origins whose web pages may call the API (CORS_ORIGINS); empty by default. */
  readonly corsOrigins: CorsOrigins;
  /** Where webhooks may send, and how `serve` delivers them. */
  readonly webhooks: WebhookConfig;
  /** The bearer token `/metrics` asks for (METRICS_TOKEN); null: it answers anyone. */
  readonly metricsToken: string | null;
}

/** The WEBHOOK_* settings. */
export interface WebhookConfig {
  /** Whether this `serve` instance delivers webhooks (WEBHOOK_DELIVERY). */
  readonly delivery: boolean;
  /** `http:` URLs and loopback addresses allowed (WEBHOOK_ALLOW_HTTP=1: tests, development). */
  readonly allowHttp: boolean;
  /** Private addresses (RFC 1918, CGNAT, unique local IPv6) and loopback allowed. */
  readonly allowPrivate: boolean;
  /** The first retry's delay; each next one doubles it. */
  readonly retryBaseMs: number;
  /** How often `serve` looks for webhooks to deliver (besides a nudge after each ingest). */
  readonly checkMs: number;
  /** Longest time one request to a receiver may take. */
  readonly timeoutMs: number;
}

/** How log lines are written: `json` (pino's lines) or `pretty` (for a person at a terminal). */
export type LogFormat = 'json' | 'pretty';

/** What the process knows of where its output goes, looked at once by the CLI's entry. */
export interface Terminal {
  /** Whether stdout is a terminal (`process.stdout.isTTY`). */
  readonly stdoutIsTty: boolean;
}

/** SOURCE_TIMEOUT_SECONDS and SOURCE_MAX_MB when unset, in seconds and MiB. */
export const SOURCE_DEFAULTS = { timeoutSeconds: 600, maxMb: 1024 } as const;

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** Shortest METRICS_TOKEN accepted: a guessable token would protect nothing. */
export const METRICS_TOKEN_MIN_LENGTH = 16;

function metricsToken(env: Env): string | null {
  const raw = nonEmpty(env, 'METRICS_TOKEN');
  if (raw === undefined) return null;
  // Sent in an Authorization header: printable ASCII without spaces, so it is sent as set.
  if (raw.length < METRICS_TOKEN_MIN_LENGTH || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} printable characters without spaces (e.g. openssl rand -hex 24)`,
    );
  }
  return raw;
}

/** A yes/no setting: 1, true, on or yes; 0, false, off or no; `fallback` when unset. */
function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (on or off), got "${raw}"`);
}

function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must start with http:// or https://, got "${raw}"`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * CORS_ORIGINS: `*`, or origins separated by commas (`https://app.example.com,http://localhost:5173`).
 * Each must be an origin and nothing more (no path, query or credentials), as a browser sends it in
 * `Origin`; it is kept in that form (lower-case host, no default port), so matching is exact.
 */
export function parseCorsOrigins(raw: string | undefined): CorsOrigins {
  if (raw === undefined) return Object.freeze([]);
  if (raw === '*') return '*';
  const origins = new Set<string>();
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const url = URL.canParse(entry) ? new URL(entry) : null;
    // Exact origins only: a pattern (`*.example.com`) would be a guess at which sites are meant,
    // and a path or query is not part of what a browser sends in `Origin`.
    const isOrigin =
      url !== null &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      url.password === '' &&
      url.pathname === '/' &&
      !/[*?#]/.test(entry);
    if (!isOrigin) {
      throw new ConfigError(
        `CORS_ORIGINS must be * or comma-separated origins (scheme://host[:port], e.g. https://app.example.com); "${entry}" is not one`,
      );
    }
    origins.add(url.origin);
  }
  return Object.freeze([...origins]);
}

/** `scheme://`: the start of a URL of any scheme (a file path never has it). */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * What a mistyped URL starts with: a scheme and a colon (`file:`, `postgres:/…`), or a database
 * scheme and `//` with its colon missing or mistyped (`postgres//…`, `postgres;//…`). A relative
 * file path seldom starts either way.
 */
const SCHEME_LIKE =
  /^(?:[a-z][a-z0-9+.-]+:|(?:postgres(?:ql)?|sqlite|mysql|mariadb)[^a-z0-9/]?\/\/)/i;

/** Query parameters of a connection URL that hold a secret (pg takes `?password=`). */
const SECRET_PARAMETER = /([?&](?:password|pass|pwd|secret|token|key|sslpassword)=)[^&#]*/gi;

/**
 * A database or Redis URL fit to show (config errors, `migrate`): as given, but with the
 * password and any secret query parameter replaced by `***`. By text, not `new URL`, so a
 * value that does not parse is masked too and the rest is shown exactly as typed.
 */
export function redactConnectionUrl(raw: string, { schemeless = false } = {}): string {
  const scheme = URL_SCHEME.exec(raw)?.[0];
  if (scheme === undefined) {
    // A mistyped URL (`smtp//user:pass@host`) may still hold a password: with `schemeless`, the
    // password goes (from the user's ':' to the last @; a user without one goes whole, as it
    // may be a token), and what comes before the user stays, so the typo shows; without a `//`
    // before it, all before the @ goes. A file path is shown as it is.
    const at = raw.lastIndexOf('@');
    if (!schemeless || at === -1) return raw;
    const slashes = raw.lastIndexOf('//', at);
    const userStart = slashes === -1 ? 0 : slashes + 2;
    const colon = raw.indexOf(':', userStart);
    const keep = slashes !== -1 && colon !== -1 && colon < at ? colon + 1 : userStart;
    return `${raw.slice(0, keep)}***${raw.slice(at)}`.replace(SECRET_PARAMETER, '$1***');
  }
  const rest = raw.slice(scheme.length);
  // The userinfo is taken to end at the last @ of all: a password may hold a raw @, ? or # (it
  // should be percent-encoded), and where the query starts is then unknown. An @ in a query
  // value hides more than the password, never less.
  const at = rest.lastIndexOf('@');
  const colon = at === -1 ? -1 : rest.slice(0, at).indexOf(':');
  const masked = colon === -1 ? rest : `${rest.slice(0, colon)}:***${rest.slice(at)}`;
  return scheme + masked.replace(SECRET_PARAMETER, '$1***');
}

/**
 * A Redis or SMTP URL (`name`), or null when unset: one of `schemes`, and a URL a client library
 * reads as typed. A password holding `#`, `/` or `?` must be percent-encoded: raw, it ends the
 * host part, and the URL either does not parse (nodemailer then printed it whole in a warning)
 * or names another host. Refused with the value shown, its password masked.
 */
function serviceUrl(env: Env, name: string, schemes: readonly string[]): string | null {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return null;
  let shown = `"${redactConnectionUrl(raw, { schemeless: true })}"`;
  const scheme = /^([a-z]+):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined || !schemes.includes(scheme)) {
    const wanted = schemes.map((s) => `${s}://`).join(' or ');
    throw new ConfigError(`${name} must start with ${wanted}, got ${shown}`);
  }
  // Everything before the last @ may be a password, raw # / ? @ and all: masked whole but the
  // user name, however the URL reads.
  const at = raw.lastIndexOf('@');
  if (at !== -1) {
    const userInfo = raw.slice(scheme.length + 3, at);
    const user = userInfo.includes(':') ? `${userInfo.slice(0, userInfo.indexOf(':'))}:` : '';
    shown = `"${raw.slice(0, scheme.length + 3)}${user}***${raw.slice(at)}"`;
  }
  const url = URL.canParse(raw) ? new URL(raw) : null;
  // An @ after the host part as read: a raw # / ? in the password ended the host part early.
  const userInfoLost =
    url !== null && (/@/.test(url.pathname + url.hash) || /^\?[^=&]*@/.test(url.search));
  if (url === null || url.hostname === '' || url.port === '0' || userInfoLost) {
    throw new ConfigError(
      `${name} is not a valid URL (a port of 1 to 65535; in a user name or password, write # as %23, / as %2F, ? as %3F, @ as %40), got ${shown}`,
    );
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: Env): string {
  const level = (nonEmpty(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  }
  return level;
}

/** The SQLite database used when DATABASE_URL is not set. */
export const DEFAULT_SQLITE_PATH = resolve(PROJECT_ROOT, 'data/onair.db');

export function parseDatabaseUrl(raw: string | undefined, cwd: string): DatabaseConfig {
  if (raw === undefined) return { engine: 'sqlite', path: DEFAULT_SQLITE_PATH };
  if (/^postgres(ql)?:\/\//i.test(raw)) return { engine: 'postgres', url: raw };
  let path = raw;
  if (/^sqlite:/i.test(path)) path = path.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (path === '') throw new ConfigError('DATABASE_URL names no SQLite file');
  // A URL of another scheme, or one with a typo (`postgres//u:pw@host/db`, `file:x.db`), is
  // refused rather than taken as a path: taken as one, it made directories named after the
  // host (and the password) and served an empty catalogue.
  if (URL_SCHEME.test(path) || SCHEME_LIKE.test(path)) {
    throw new ConfigError(
      `DATABASE_URL must be a SQLite file path, sqlite:PATH or postgres://…, got "${redactConnectionUrl(raw, { schemeless: true })}"`,
    );
  }
  if (path === ':memory:') return { engine: 'sqlite', path };
  return { engine: 'sqlite', path: isAbsolute(path) ? path : resolve(cwd, path) };
}

/**
 * Parses the environment into a frozen Config; throws ConfigError with a one-line message.
 * `terminal` decides the log format when LOG_FORMAT is unset: JSON unless stdout is a terminal
 * (so callers other than the CLI, tests among them, get JSON).
 */
export function loadConfig(
  env: Env = process.env,
  cwd = process.cwd(),
  terminal: Terminal = { stdoutIsTty: false },
): Config {
  const host = nonEmpty(env, 'HOST') ?? '127.0.0.1';
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const publicUrlRaw = nonEmpty(env, 'PUBLIC_URL');
  const displayHost = host.includes(':') ? `[${host}]` : host;
  const publicUrl = publicUrlRaw
    ? httpUrl('PUBLIC_URL', publicUrlRaw)
    : `http://${displayHost === '0.0.0.0' ? '127.0.0.1' : displayHost}:${port}`;
  const retention = nonEmpty(env, 'RETENTION_DAYS');
  const redisUrl = serviceUrl(env, 'REDIS_URL', ['redis', 'rediss']);
  const trustProxy = (nonEmpty(env, 'TRUST_PROXY') ?? 'false').toLowerCase();
  const sourceRefresh = (nonEmpty(env, 'SOURCE_REFRESH') ?? 'on').toLowerCase();
  if (!['on', 'off'].includes(sourceRefresh)) {
    throw new ConfigError(`SOURCE_REFRESH must be on or off, got "${sourceRefresh}"`);
  }
  const trustedProxies = parseTrustProxy(trustProxy);

  const logFormat = (nonEmpty(env, 'LOG_FORMAT') ?? 'auto').toLowerCase();
  if (!['auto', 'json', 'pretty'].includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be json, pretty or auto, got "${logFormat}"`);
  }

  const database = parseDatabaseUrl(nonEmpty(env, 'DATABASE_URL'), cwd);
  const outboxRaw = nonEmpty(env, 'OUTBOX_DIR');
  // By default the outbox sits beside the SQLite file (./data/outbox for ./data/onair.db).
  const outboxDir =
    outboxRaw !== undefined
      ? resolve(cwd, outboxRaw)
      : database.engine === 'sqlite' && database.path !== ':memory:'
        ? resolve(dirname(database.path), 'outbox')
        : resolve(PROJECT_ROOT, 'data/outbox');
  const smtpUrl = serviceUrl(env, 'SMTP_URL', ['smtp', 'smtps']);

  return Object.freeze({
    database: Object.freeze(database),
    databaseExplicit: nonEmpty(env, 'DATABASE_URL') !== undefined,
    redisUrl,
    redisKeyPrefix: nonEmpty(env, 'REDIS_KEY_PREFIX') ?? 'onair:',
    host,
    port,
    publicUrl,
    publicUrlExplicit: publicUrlRaw !== undefined,
    smtpUrl,
    mailFrom: nonEmpty(env, 'MAIL_FROM') ?? 'Onair <no-reply@onair.local>',
    outboxDir,
    retentionDays:
      retention === undefined ? null : integer(env, 'RETENTION_DAYS', 366, 366, 100_000),
    changesRetentionDays: integer(env, 'CHANGES_RETENTION_DAYS', 30, 1, 100_000),
    trustProxy: trustedProxies,
    logLevel: logLevel(env),
    logFormat:
      logFormat === 'auto' ? (terminal.stdoutIsTty ? 'pretty' : 'json') : (logFormat as LogFormat),
    authFailureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 100, 1, 1_000_000),
    authFailureWindowMs: 10_000,
    playgroundLimit: integer(env, 'PLAYGROUND_LIMIT', 60, 1, 1_000_000),
    playgroundWindowMs: 60_000,
    feedFetchLimit: integer(env, 'FEED_FETCH_LIMIT', DEFAULT_FEED_FETCH_LIMIT, 1, 1_000_000_000),
    sourceRefresh: sourceRefresh === 'on',
    sourceCheckMs: integer(env, 'SOURCE_CHECK_SECONDS', 60, 1, 86_400) * 1000,
    sourceTimeoutMs:
      integer(env, 'SOURCE_TIMEOUT_SECONDS', SOURCE_DEFAULTS.timeoutSeconds, 1, 86_400) * 1000,
    sourceMaxBytes:
      integer(env, 'SOURCE_MAX_MB', SOURCE_DEFAULTS.maxMb, 1, 1_048_576) * 1024 * 1024,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT', 30, 0, 3600) * 1000,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT', 30, 1, 3600) * 1000,
    corsOrigins: parseCorsOrigins(nonEmpty(env, 'CORS_ORIGINS')),
    webhooks: Object.freeze({
      delivery: flag(env, 'WEBHOOK_DELIVERY', true),
      allowHttp: flag(env, 'WEBHOOK_ALLOW_HTTP', false),
      allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
      retryBaseMs:
        integer(env, 'WEBHOOK_RETRY_BASE_SECONDS', DEFAULT_WEBHOOK_RETRY_BASE_MS / 1000, 1, 3600) *
        1000,
      checkMs: integer(env, 'WEBHOOK_CHECK_SECONDS', 5, 1, 3600) * 1000,
      timeoutMs:
        integer(env, 'WEBHOOK_TIMEOUT_SECONDS', DEFAULT_WEBHOOK_TIMEOUT_MS / 1000, 1, 60) * 1000,
    }),
    metricsToken: metricsToken(env),
  });
}

/**
 * TRUST_PROXY: none (`false`); the one reverse proxy in front, whatever its address (`true`);
 * or the proxies' addresses, comma-separated (`127.0.0.1`, `10.0.0.0/8`, `loopback`,
 * `uniquelocal`…, as @fastify/proxy-addr reads them). Either way the client's address is the
 * nearest one not trusted, counting back from the connection through `X-Forwarded-For`: what
 * a client writes into the header itself is never taken.
 */
export type TrustedProxies =
  | { readonly kind: 'none' }
  | { readonly kind: 'nearest' }
  | { readonly kind: 'listed'; readonly addresses: readonly string[] };

function parseTrustProxy(text: string): TrustedProxies {
  if (text === 'false' || text === '0') return { kind: 'none' };
  if (text === 'true' || text === '1') return { kind: 'nearest' };
  const addresses = text.split(',').map((a) => a.trim());
  try {
    if (addresses.some((a) => a === '')) throw new Error('an empty entry');
    proxyAddr.compile(addresses);
  } catch (error) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false or the proxies' addresses (e.g. 127.0.0.1,10.0.0.0/8), got "${text}": ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { kind: 'listed', addresses };
}
