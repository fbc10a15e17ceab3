/** A count with its noun, singular for exactly one: "1 channel", "3 channels" (pages and CLI). */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
