/** `YYYYMMDDHHMMSS +0000`: how the API writes every programme time (always UTC). */
const XMLTV_UTC = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}) \+0000$/;

/**
 * A programme's `start` or `stop` as a Date, or null when it is not a time: a `stop` the guide
 * left out is `""`, and a time that did not parse upstream is passed on as written (the
 * programme then has `needsReview: true`). `new Date()` cannot read the XMLTV form itself.
 *
 * ```ts
 * const starts = xmltvTime(programme.start); // Date | null
 * ```
 */
export function xmltvTime(text: string): Date | null {
  const m = XMLTV_UTC.exec(text);
  if (m === null) return null;
  const [, year, month, day, hour, minute, second] = m.map(Number) as number[];
  const ms = Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0, second ?? 0);
  const date = new Date(ms);
  // 20260230…: Date.UTC rolls it into March; the API never writes one, a hand-made text might.
  return date.getUTCDate() === day && date.getUTCMonth() === (month ?? 1) - 1 ? date : null;
}
