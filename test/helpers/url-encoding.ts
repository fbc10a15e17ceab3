/** encodeURIComponent, with a lone surrogate sent as the invalid UTF-8 it would be. */
export function encodeHostile(text: string): string {
  return Array.from(text)
    .map((c) => {
      try {
        return encodeURIComponent(c);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');
}
