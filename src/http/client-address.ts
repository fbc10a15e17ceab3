import type { IncomingMessage } from 'node:http';

/** The first entry of a comma-separated `X-Forwarded-For` value that is not blank. */
function leftmostForwarded(header: string): string | undefined {
  if (!header.includes(',')) return header.trim() || undefined;
  for (const part of header.split(',')) {
    // Only spaces and tabs surround a list entry.
    const entry = part.replace(/^[ \t]+|[ \t]+$/g, '');
    if (entry !== '') return entry;
  }
  return undefined;
}

/**
 * The client's address of a request, exactly as Fastify's `request.ip` gives it for a boolean
 * `trustProxy` (`test/http/client-address.test.ts` compares them): the connection's peer, or,
 * behind proxies that are all trusted, the first `X-Forwarded-For` entry. The API counts failed
 * keys per this address on both of its paths, and the fast lane has no Fastify request to ask.
 */
export function clientAddressOf(trustProxy: boolean): (req: IncomingMessage) => string | undefined {
  if (!trustProxy) return (req) => req.socket.remoteAddress;
  return (req) => {
    const forwarded = req.headers['x-forwarded-for'];
    const first = typeof forwarded === 'string' ? leftmostForwarded(forwarded) : undefined;
    return first ?? req.socket.remoteAddress;
  };
}
