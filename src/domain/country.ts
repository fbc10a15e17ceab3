import { errors } from './errors.js';

const COUNTRY_CODE = /^[A-Za-z0-9-]{1,16}$/;

/** Country assigned to channels whose country is neither given nor inferable. */
export const UNKNOWN_COUNTRY = 'ZZ';

export function isValidCountryCode(value: string): boolean {
  return COUNTRY_CODE.test(value);
}

/** Validates a country code from a request or the CLI and returns its stored (upper-case) form. */
export function parseCountryCode(value: string): string {
  if (!isValidCountryCode(value)) throw errors.invalidCountry();
  return value.toUpperCase();
}

/**
 * Codes in common use that ISO 3166 spells otherwise. Guides often say UK (XMLTV ids end in
 * `.uk`) and Onair keeps the code it was given, so `UK` answers as it always did; a message
 * about such a code also names the ISO code, which other guides and tools use.
 */
const ISO_3166_SPELLING: Readonly<Record<string, { iso: string; name: string }>> = {
  UK: { iso: 'GB', name: 'the United Kingdom' },
};

/**
 * A note to add to a message about `country` when ISO 3166 spells it otherwise, as
 * ` (ISO 3166 code for the United Kingdom: GB)`; empty for every other code.
 */
export function isoCountryNote(country: string): string {
  const spelling = ISO_3166_SPELLING[country.trim().toUpperCase()];
  return spelling === undefined ? '' : ` (ISO 3166 code for ${spelling.name}: ${spelling.iso})`;
}

/**
 * Infers a country from an XMLTV channel id's last dot-separated label (`bbc1.uk` → `UK`).
 * A feed suffix such as `@SD` (common in community guides) is ignored. Only two-letter labels
 * count: `.com` or `.tv` say nothing about a country.
 */
export function inferCountryFromXmltvId(xmltvId: string): string | null {
  const withoutFeed = xmltvId.split('@')[0] ?? '';
  const dot = withoutFeed.lastIndexOf('.');
  if (dot < 0) return null;
  const label = withoutFeed.slice(dot + 1).trim();
  return /^[A-Za-z]{2}$/.test(label) ? label.toUpperCase() : null;
}
