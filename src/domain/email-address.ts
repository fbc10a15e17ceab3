/** Longest address kept (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * Reads an e-mail address typed by a person: trimmed, one `@`, no spaces or control characters,
 * a dot in the domain. Returns null when it cannot be an address. Case is kept for display;
 * the store compares addresses case-insensitively.
 */
export function parseEmailAddress(text: string): string | null {
  const value = text.trim();
  if (value.length === 0 || value.length > MAX_EMAIL_LENGTH) return null;
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return null; // control characters
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return null;
  return value;
}
