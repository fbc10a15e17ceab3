import type { IncomingHttpHeaders } from 'node:http';

/**
 * Cross-site request forgery check for state-changing requests. Browsers send
 * `Sec-Fetch-Site` and `Origin` with every POST; both, when present, must say the form came
 * from this site, and at least one must be present. Without a token in the form, this stops a
 * page elsewhere from posting to ours with the visitor's cookie.
 */
export function isSameOriginRequest(headers: IncomingHttpHeaders, siteOrigin: string): boolean {
  const fetchSite = headers['sec-fetch-site'];
  const origin = headers.origin;
  if (fetchSite === undefined && origin === undefined) return false;
  if (fetchSite !== undefined && fetchSite !== 'same-origin') return false;
  if (origin !== undefined && origin !== siteOrigin) return false;
  return true;
}
