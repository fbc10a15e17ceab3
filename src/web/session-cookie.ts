import type { SiteAddress } from '../http/site-address.js';

/** Whether the site is served over https (cookies are Secure, HSTS is sent). */
export const isHttpsSite = (site: SiteAddress): boolean => site.url.startsWith('https:');

/**
 * The session cookie's name. `__Host-` makes the browser refuse the cookie unless it is Secure,
 * host-only and on `/`.
 */
export const sessionCookieName = (site: SiteAddress): string =>
  isHttpsSite(site) ? '__Host-onair_session' : 'onair_session';
