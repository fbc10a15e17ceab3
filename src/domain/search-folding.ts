/** Longest search text used; longer input is cut, not rejected (spec). */
export const MAX_SEARCH_LENGTH = 200;
/** Most results a search returns (spec). */
export const MAX_SEARCH_RESULTS = 200;

const COMBINING_MARKS = /\p{M}+/gu;

/**
 * Folds text for case- and accent-insensitive matching: compatibility decomposition, marks
 * removed, lower-cased. "Télé" and "TELE" both fold to "tele".
 */
export function foldForSearch(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase().normalize('NFC');
}

/** Key for the contract's "ordered by channel name, case-insensitive". */
export function nameSortKey(name: string): string {
  return name.toLowerCase();
}

/**
 * Turns the raw `q` parameter into the folded needle to look for, or null when it can match
 * nothing: blank after trimming, or holding U+0000, which no XML text (so no channel name) can
 * contain and PostgreSQL refuses in a text value. Cut at 200 characters (code points, so a
 * surrogate pair is never split) after trimming.
 */
export function searchNeedle(q: string | undefined): string | null {
  const trimmed = (q ?? '').trim();
  if (trimmed === '') return null;
  const cut = Array.from(trimmed).slice(0, MAX_SEARCH_LENGTH).join('');
  if (cut.includes('\u0000')) return null;
  const folded = foldForSearch(cut);
  return folded === '' ? null : folded;
}
