import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustedProxies } from '../config.js';

/** Whether the `hop`-th address from the connection (0: its peer) is a proxy to believe. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it, and as clientAddressOf below uses it: false,
 * the nearest hop (one proxy in front, whatever its address; Fastify refuses a bare hop count),
 * or the listed proxies' addresses.
 */
export function proxyTrust(trusted: TrustedProxies): ProxyTrust | false {
  switch (trusted.kind) {
    case 'none':
      return false;
    case 'nearest':
      return (_address, hop) => hop === 0;
    case 'listed':
      return proxyAddr.compile([...trusted.addresses]);
  }
}

/**
 * The client's address of a request, exactly as Fastify's `request.ip` gives it for the same
 * trust (`src/http/client-address.test.ts` compares them): the connection's peer, or, behind
 * trusted proxies, the nearest address not trusted, counting back from the peer through
 * `X-Forwarded-For` (a client's own entries come before it, and are never taken). The API
 * counts failed keys per this address on both of its paths, and the fast lane has no Fastify
 * request to ask.
 */
export function clientAddressOf(
  trusted: TrustedProxies,
): (req: IncomingMessage) => string | undefined {
  const trust = proxyTrust(trusted);
  if (trust === false) return (req) => req.socket.remoteAddress;
  return (req) => proxyAddr(req, trust);
}
