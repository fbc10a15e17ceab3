import { InvalidArgumentError } from 'commander';
import { cleanKeyName } from '../accounts/account-service.js';
import { isValidCountryCode } from '../domain/country.js';
import { parseEmailAddress } from '../domain/email-address.js';
import { parseDuration } from '../domain/duration.js';
import { parseUtcOffset } from '../domain/xmltv-time.js';

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Whether the calendar date and clock time exist. Date.parse rolls 2027-02-30 over to March 2
 * (and 24:00 to the next day) where the operator surely meant something else.
 */
function existsOnCalendar(fields: RegExpExecArray): boolean {
  const [year, month, day, hour = 0, minute = 0, second = 0] = fields
    .slice(1, 7)
    .map((f) => (f === undefined ? undefined : Number(f)));
  if (year === undefined || month === undefined || day === undefined) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

/**
 * Parses an ISO 8601 date or date-time given on the command line. A value without a zone is
 * read as UTC (not the machine's zone) so the same command means the same everywhere.
 */
export function parseIsoInstant(text: string): number {
  const value = text.trim();
  const fields = ISO_INSTANT.exec(value);
  if (fields === null) {
    throw new InvalidArgumentError(`"${text}" is not an ISO 8601 date or date-time`);
  }
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) && value.length > 10;
  const normalised = value.replace(' ', 'T');
  const ms = Date.parse(hasZone || value.length === 10 ? normalised : `${normalised}Z`);
  if (Number.isNaN(ms) || !existsOnCalendar(fields)) {
    throw new InvalidArgumentError(`"${text}" is not a valid date`);
  }
  return ms;
}

// Commander turns a parser's `null` into '', so "clear this value" is spelled as a word.
export function parseIsoInstantOrNone(text: string): number | 'none' {
  return text.trim().toLowerCase() === 'none' ? 'none' : parseIsoInstant(text);
}

/** The highest per-account limit an operator can set (requests per second). */
const MAX_RATE_LIMIT = 1_000_000;

export function parseRateLimit(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > MAX_RATE_LIMIT) {
    throw new InvalidArgumentError(
      `"${text}" is not a whole number of requests per second from 1 to ${MAX_RATE_LIMIT}`,
    );
  }
  return Number(text);
}

export function parseRateLimitOrDefault(text: string): number | 'default' {
  return text.trim().toLowerCase() === 'default' ? 'default' : parseRateLimit(text);
}

export function parseBoolean(text: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError(`"${text}" is not true or false`);
}

export function parseCountryOption(text: string): string {
  if (!isValidCountryCode(text)) {
    throw new InvalidArgumentError(
      `"${text}" is not a country code (letters, digits and hyphens, at most 16 characters)`,
    );
  }
  return text.toUpperCase();
}

export function parseOffsetOption(text: string): number {
  const minutes = parseUtcOffset(text);
  if (minutes === null) throw new InvalidArgumentError(`"${text}" is not an offset like +0530`);
  return minutes;
}

export function parseEmail(text: string): string {
  const value = parseEmailAddress(text);
  if (value === null) throw new InvalidArgumentError(`"${text}" is not an e-mail address`);
  return value;
}

/** Shortest and longest refresh interval of a source. */
export const MIN_SOURCE_INTERVAL_MS = 60_000;
export const MAX_SOURCE_INTERVAL_MS = 30 * 86_400_000;

export function parseIntervalOption(text: string): number {
  const ms = parseDuration(text);
  if (ms === null) {
    throw new InvalidArgumentError(`"${text}" is not a duration like 30m, 6h or 1d`);
  }
  if (ms < MIN_SOURCE_INTERVAL_MS || ms > MAX_SOURCE_INTERVAL_MS) {
    throw new InvalidArgumentError(`"${text}" is not between 1m and 30d`);
  }
  return ms;
}

export function parseChannelName(text: string): string {
  const name = text.trim();
  if (name === '' || name.length > 200) {
    throw new InvalidArgumentError('a channel name must have 1 to 200 characters');
  }
  return name;
}

/** An API key's name as the web page takes it (cleanKeyName); an empty one is refused. */
export function parseKeyName(text: string): string {
  if (cleanKeyName(text) === '') {
    throw new InvalidArgumentError('give the key a name, e.g. production');
  }
  return text;
}
