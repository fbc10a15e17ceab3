/**
 * The public base URL of this deployment, used in e-mailed links, pages and the same-origin
 * check. It is PUBLIC_URL when set; otherwise it is derived from HOST and PORT and corrected to
 * the real port once the server listens (PORT=0 picks a free one).
 */
export interface SiteAddress {
  readonly url: string;
  readonly origin: string;
}

export interface MutableSiteAddress extends SiteAddress {
  /** Called by the server after listening when PUBLIC_URL was not given. */
  listeningAt(url: string): void;
}

export function createSiteAddress(initialUrl: string): MutableSiteAddress {
  let url = initialUrl;
  let origin = new URL(initialUrl).origin;
  return {
    get url() {
      return url;
    },
    get origin() {
      return origin;
    },
    listeningAt(actual) {
      url = actual;
      origin = new URL(actual).origin;
    },
  };
}
