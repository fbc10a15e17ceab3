/**
 * XMLTV datetimes (DTD: "YYYYMMDDhhmmss" or an initial substring of it, then an optional time
 * zone, numeric "+HHMM" strongly recommended) converted to UTC instants and to the one form the
 * API returns, `YYYYMMDDHHMMSS +0000`.
 */

const DATETIME =
  /^(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:([+-])(\d{2}):?(\d{2})|(UTC|GMT|UT|Z))?$/i;
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;

/** Parses a numeric offset such as `+0530`, `-04:00`; returns minutes east of UTC or null. */
export function parseUtcOffset(text: string): number | null {
  const m = OFFSET.exec(text.trim());
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 14 || minutes > 59) return null;
  const total = hours * 60 + minutes;
  return m[1] === '-' ? -total : total;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an XMLTV datetime to epoch milliseconds. A value without a zone is read at
 * `assumedOffsetMinutes` (UTC unless the operator says otherwise). Returns null when the text is
 * not a valid XMLTV datetime, including impossible calendar values.
 */
export function parseXmltvTime(text: string, assumedOffsetMinutes = 0): number | null {
  const m = DATETIME.exec(text.trim());
  if (!m) return null;
  const year = Number(m[1]);
  // Date.UTC maps years below 100 into the 1900s; no guide is that old.
  if (year < 100) return null;
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;

  let offsetMinutes = assumedOffsetMinutes;
  if (m[7] !== undefined) {
    const oh = Number(m[8]);
    const om = Number(m[9]);
    if (oh > 14 || om > 59) return null;
    offsetMinutes = (m[7] === '-' ? -1 : 1) * (oh * 60 + om);
  } else if (m[10] !== undefined) {
    offsetMinutes = 0;
  }
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  return local - offsetMinutes * 60_000;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** Formats an instant as the API's `YYYYMMDDHHMMSS +0000`. */
export function formatXmltvUtc(ms: number): string {
  const d = new Date(ms);
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) +
    pad(d.getUTCSeconds(), 2) +
    ' +0000'
  );
}

/** Minutes east of UTC as an XMLTV offset: 330 → `+0530`, -240 → `-0400`. */
export function formatUtcOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}
