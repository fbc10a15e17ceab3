const INSTANT = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** An instant as people read it on the account page: `29 Nov 2026, 17:40 UTC`. */
export function formatInstant(ms: number): string {
  return `${INSTANT.format(new Date(ms))} UTC`;
}
