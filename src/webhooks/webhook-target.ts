import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { asSentence } from '../domain/display-text.js';
import { parseWebhookUrl, WebhookSettingsError } from '../domain/webhook.js';
import { addressClass, type AddressClass } from './address-class.js';

/** What the operator allows beyond https to public addresses (WEBHOOK_ALLOW_HTTP, _PRIVATE). */
export interface WebhookUrlPolicy {
  /** `http:` to this machine, and loopback addresses over https too. */
  allowHttp: boolean;
  /** Private addresses (and loopback), over https (or http with allowHttp as well). */
  allowPrivate: boolean;
}

/** A name's addresses, as node:dns `lookup` with `all: true` gives them. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) =>
  lookup(hostname, { all: true, verbatim: true });

/** A URL checked for sending: the address to connect to is the one that was checked. */
export interface WebhookTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * A URL refused by the rules; the message says why, for pages, the CLI and the attempt log. A
 * message that starts with the host as typed says so (`namesHostFirst`), so a page making a
 * sentence of it never capitalises the host ("Localhost (127.0.0.1) is…").
 */
export class WebhookUrlError extends WebhookSettingsError {
  override name = 'WebhookUrlError';
  constructor(
    message: string,
    readonly namesHostFirst = false,
  ) {
    super(message);
  }
}

/** A refusal as a sentence for a page: capitalised and ended, the host kept as typed. */
export function webhookRefusalSentence(error: Error): string {
  if (error instanceof WebhookUrlError && error.namesHostFirst) {
    return `The address ${error.message}.`;
  }
  return asSentence(error.message);
}

/** Why a name could not be resolved, in words (the resolver's code means little to people). */
function unresolved(host: string, code: unknown): WebhookUrlError {
  // ENOTFOUND / ENODATA: the name has no address; anything else (EAI_AGAIN, ETIMEOUT,
  // ESERVFAIL…) is the name servers failing to answer, which may pass.
  if (code === undefined || code === 'ENOTFOUND' || code === 'ENODATA') {
    return new WebhookUrlError(`the host ${host} could not be found in DNS`);
  }
  return new WebhookUrlError(
    `the host ${host} could not be looked up in DNS just now (the name servers did not answer): try again later`,
  );
}

function allowed(kind: AddressClass, policy: WebhookUrlPolicy): boolean {
  if (kind === 'public') return true;
  if (kind === 'loopback') return policy.allowHttp || policy.allowPrivate;
  if (kind === 'private') return policy.allowPrivate;
  return false;
}

const WHY: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  forbidden: 'an address that cannot receive webhooks (link-local, multicast, reserved…)',
};

/**
 * Checks a webhook URL against the rules and resolves its host, at creation and again before
 * every request (the name may point elsewhere by then): `https:` only, `http:` only with
 * WEBHOOK_ALLOW_HTTP and only to addresses off the internet; every address the name resolves
 * to must be allowed (one private address among public ones is refused: the name is not the
 * customer's alone to point). The request then connects to the address checked here, so DNS
 * rebinding between the check and the connection cannot swap it.
 */
export async function checkWebhookTarget(
  text: string,
  policy: WebhookUrlPolicy,
  resolve: Resolver = systemResolver,
): Promise<WebhookTarget> {
  const url = parseWebhookUrl(text);
  if (url.protocol === 'http:' && !policy.allowHttp) {
    throw new WebhookUrlError('a webhook URL must start with https://');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw unresolved(host, (error as { code?: unknown }).code);
    }
    if (addresses.length === 0) throw unresolved(host, undefined);
  }
  for (const { address } of addresses) {
    const kind = addressClass(address);
    if (kind !== 'public' && !allowed(kind, policy)) {
      const named = address === host ? address : `${host} (${address})`;
      throw new WebhookUrlError(`${named} is ${WHY[kind]}: webhooks go to public addresses`, true);
    }
    if (url.protocol === 'http:' && kind === 'public') {
      throw new WebhookUrlError(
        'a webhook URL must start with https:// (plain http only reaches this machine or, when allowed, private networks)',
      );
    }
  }
  const first = addresses[0];
  if (first === undefined) throw unresolved(host, undefined);
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
