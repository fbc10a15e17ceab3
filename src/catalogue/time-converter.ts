/** XMLTV time text to the catalogue form, fast for the forms guides use (see TimeConverter). */
import { formatXmltvUtc, parseXmltvTime } from '../domain/xmltv-time.js';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function num(text: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/**
 * Fast path of `parseXmltvTime` for the forms nearly every guide uses, `YYYYMMDDhhmmss +HHMM`
 * and `YYYYMMDDhhmmss`: same checks, same result (a test compares the two on many inputs),
 * without the regular expression and Date objects, which were a tenth of the ingest's time.
 * Returns undefined for any other form, which then goes to the domain parser.
 */
export function parseCommonXmltvTime(
  text: string,
  assumedOffsetMinutes: number,
): number | null | undefined {
  const length = text.length;
  if (length !== 14 && length !== 20) return undefined;
  if (!isDigits(text, 0, 14)) return undefined;
  let offset = assumedOffsetMinutes;
  if (length === 20) {
    const sign = text.charCodeAt(15);
    if (text.charCodeAt(14) !== 32 || (sign !== 43 && sign !== 45) || !isDigits(text, 16, 20)) {
      return undefined;
    }
    const oh = num(text, 16, 2);
    const om = num(text, 18, 2);
    if (oh > 14 || om > 59) return null;
    offset = (sign === 45 ? -1 : 1) * (oh * 60 + om);
  }
  const year = num(text, 0, 4);
  const month = num(text, 4, 2);
  const day = num(text, 6, 2);
  const hour = num(text, 8, 2);
  const minute = num(text, 10, 2);
  const second = num(text, 12, 2);
  if (year < 100 || month < 1 || month > 12 || day < 1) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  if (day > monthDays || hour > 23 || minute > 59 || second > 59) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second) - offset * 60_000;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/** `formatXmltvUtc` without padStart and its small strings (same output; tested). */
export function formatUtcFast(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (year < 1000 || year > 9999) return formatXmltvUtc(ms);
  return (
    String(year) +
    (TWO_DIGITS[d.getUTCMonth() + 1] as string) +
    (TWO_DIGITS[d.getUTCDate()] as string) +
    (TWO_DIGITS[d.getUTCHours()] as string) +
    (TWO_DIGITS[d.getUTCMinutes()] as string) +
    (TWO_DIGITS[d.getUTCSeconds()] as string) +
    ' +0000'
  );
}

/**
 * XMLTV time text → (epoch ms, UTC form). Remembers the last two texts: a programme's start is
 * usually the previous programme's stop, so half the conversions are a cache hit.
 */
export class TimeConverter {
  private textA = '';
  private msA: number | null = null;
  private utcA = '';
  private textB = '';
  private msB: number | null = null;
  private utcB = '';
  ms: number | null = null;
  utc = '';

  constructor(private readonly assumeOffsetMinutes: number) {}

  /** Sets `ms` (null when unparseable) and `utc` (the UTC form, or the text as given). */
  convert(text: string): void {
    if (text === this.textA && text !== '') {
      this.ms = this.msA;
      this.utc = this.utcA;
      return;
    }
    if (text === this.textB && text !== '') {
      this.ms = this.msB;
      this.utc = this.utcB;
      return;
    }
    const common = parseCommonXmltvTime(text, this.assumeOffsetMinutes);
    const ms = common === undefined ? parseXmltvTime(text, this.assumeOffsetMinutes) : common;
    this.ms = ms;
    if (ms === null) this.utc = text;
    // A valid "YYYYMMDDhhmmss +0000" is already the UTC form.
    else if (common !== undefined && text.length === 20 && text.endsWith(' +0000')) this.utc = text;
    else this.utc = formatUtcFast(ms);
    this.textB = this.textA;
    this.msB = this.msA;
    this.utcB = this.utcA;
    this.textA = text;
    this.msA = ms;
    this.utcA = this.utc;
  }
}
