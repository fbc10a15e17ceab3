/** Durations as an operator writes them: `90s`, `30m`, `6h`, `1d`, `1h30m`. */

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+[smhd])+$/i;

/** Milliseconds of a duration such as `6h` or `1h30m`; null when the text is not one. */
export function parseDuration(text: string): number | null {
  const value = text.trim().toLowerCase();
  if (!DURATION.test(value)) return null;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([smhd])/g)) {
    total += Number(amount) * (UNIT_MS[unit ?? ''] ?? 0);
  }
  return total > 0 && Number.isSafeInteger(total) ? total : null;
}

/** The shortest spelling of a duration (`6h`, `1h30m`, `45s`); sub-second parts are dropped. */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms / 1000)) * 1000;
  if (rest === 0) return '0s';
  let text = '';
  for (const unit of ['d', 'h', 'm', 's']) {
    const size = UNIT_MS[unit] ?? 1;
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  return text;
}
