/**
 * Text people type for themselves (key and feed names) and messages they read on a page: one
 * rule for each, so a key name and a feed name are cleaned alike and every page words a refusal
 * alike.
 */

/**
 * A typed name's characters as kept, before any cut: control characters dropped (a name is shown
 * on one line of a page and a terminal), then trimmed. Code points, so a cut never halves one.
 */
export function nameCharacters(text: string): string[] {
  const kept = Array.from(text).filter((c) => c.charCodeAt(0) >= 0x20 && c !== '\u007f');
  return Array.from(kept.join('').trim());
}

/** A typed name as stored: `nameCharacters`, cut to `max` characters. */
export function cleanName(text: string, max: number): string {
  return nameCharacters(text).slice(0, max).join('');
}

/** A rule's message ("name must be…") as a sentence of a page: capitalised and ended. */
export function asSentence(message: string): string {
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
}
