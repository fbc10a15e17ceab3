/** Longest address kept (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** Longest local part (before the `@`), RFC 5321. */
export const MAX_EMAIL_LOCAL_LENGTH = 64;

/**
 * The local part: dot-separated runs of RFC 5322 `atext` (letters, digits and
 * ! # $ % & ' * + / = ? ^ _ ` { | } ~ -) or non-ASCII characters (RFC 6531; not the C1 controls
 * or the no-break space). Quoted local parts ("a b"@x.com), which may hold spaces and
 * < > ( ) [ ] \ , ; : ", are left out on purpose: hardly anyone has one, and refusing them keeps
 * markup and mail-header syntax out of the addresses we store, show and send to.
 */
const LOCAL_PART =
  /^[\w!#$%&'*+/=?^`{|}~\u00a1-\uffff-]+(?:\.[\w!#$%&'*+/=?^`{|}~\u00a1-\uffff-]+)*$/u;
/** A domain name: at least two labels of letters, digits, hyphens (not at an end) or non-ASCII. */
const DOMAIN =
  /^(?:[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]*[a-z0-9\u00a1-\uffff])?\.)+[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]*[a-z0-9\u00a1-\uffff])?$/iu;

/**
 * Reads an e-mail address typed by a person: trimmed, one `@`, a plausible local part (see
 * LOCAL_PART) and a domain name with a dot. Returns null when it cannot be an address. Case is
 * kept for display; the store compares addresses case-insensitively.
 */
export function parseEmailAddress(text: string): string | null {
  const value = text.trim();
  if (value.length === 0 || value.length > MAX_EMAIL_LENGTH) return null;
  const at = value.lastIndexOf('@');
  if (at < 1) return null;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > MAX_EMAIL_LOCAL_LENGTH) return null;
  if (!LOCAL_PART.test(local) || !DOMAIN.test(domain)) return null;
  return value;
}
