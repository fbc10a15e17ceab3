import fc from 'fast-check';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { TrustedProxies } from '../config.js';
import { clientAddressOf, proxyTrust } from './client-address.js';

// The fast lane has no Fastify request, so it finds the client's address itself: it must be
// Fastify's `request.ip` exactly, or a failed key would be counted against another address on
// one path than on the other.

const TRUSTS: Record<string, TrustedProxies> = {
  none: { kind: 'none' },
  nearest: { kind: 'nearest' },
  listed: { kind: 'listed', addresses: ['127.0.0.1', '10.0.0.0/8'] },
};

const apps = Object.entries(TRUSTS).map(([name, trusted]) => {
  const app = Fastify({ trustProxy: proxyTrust(trusted) });
  const ours = clientAddressOf(trusted);
  app.get('/', async (request) => ({
    fastify: request.ip ?? null,
    ours: ours(request.raw) ?? null,
  }));
  return { name, app };
});

afterAll(async () => {
  for (const { app } of apps) await app.close();
});

/** X-Forwarded-For values as proxies and clients write them, and worse. */
const forwardedFor = fc.stringMatching(/^[ \t,a-f0-9.:\u00a0]{0,40}$/);

/** What `name`'s app takes as the client of a request from `peer` with this header. */
async function ip(name: string, peer: string, header?: string): Promise<string> {
  const app = apps.find((a) => a.name === name)?.app;
  const res = await app?.inject({
    url: '/',
    remoteAddress: peer,
    headers: header === undefined ? {} : { 'x-forwarded-for': header },
  });
  return (res?.json() as { ours: string }).ours;
}

describe('clientAddressOf', () => {
  for (const { name, app } of apps) {
    it(`is Fastify's request.ip (TRUST_PROXY ${name})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.option(forwardedFor, { nil: undefined }),
          fc.constantFrom('127.0.0.1', '10.1.2.3', '::1', '192.0.2.50'),
          async (header, remoteAddress) => {
            const res = await app.inject({
              url: '/',
              remoteAddress,
              headers: header === undefined ? {} : { 'x-forwarded-for': header },
            });
            const { fastify, ours } = res.json() as { fastify: string; ours: string };
            expect(ours).toBe(fastify);
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('never takes what a client wrote into X-Forwarded-For itself', async () => {
    // Without trust, the peer.
    expect(await ip('none', '10.0.0.1', '192.0.2.7')).toBe('10.0.0.1');
    // Behind one proxy: the address it appended, last; a client's own entries come before.
    expect(await ip('nearest', '127.0.0.1', '203.0.113.9, 192.0.2.7')).toBe('192.0.2.7');
    expect(await ip('nearest', '127.0.0.1', ' 192.0.2.7 ')).toBe('192.0.2.7');
    expect(await ip('nearest', '127.0.0.1', ' , ')).toBe('127.0.0.1');
    // Listed proxies: back through them to the first address that is not one.
    expect(await ip('listed', '10.0.0.1', '198.51.100.1, 192.0.2.7, 10.0.0.2')).toBe('192.0.2.7');
    // A peer that is not a listed proxy is the client, whatever it forwards.
    expect(await ip('listed', '192.0.2.50', '198.51.100.1')).toBe('192.0.2.50');
  });
});
