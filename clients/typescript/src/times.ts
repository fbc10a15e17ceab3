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
  const [, year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m.map(Number);
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  // 20260230… or a minute 60: Date rolls it over (into March, the next hour); the API never
  // writes one, a hand-made text might.
  const fields = [
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ];
  return fields.every((field, i) => field === [year, month, day, hour, minute, second][i])
    ? date
    : null;
}
