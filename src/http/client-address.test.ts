import fc from 'fast-check';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { clientAddressOf } from './client-address.js';

// The fast lane has no Fastify request, so it finds the client's address itself: it must be
// Fastify's `request.ip` exactly, or a failed key would be counted against another address on
// one path than on the other.

const apps = [false, true].map((trustProxy) => {
  const app = Fastify({ trustProxy });
  const ours = clientAddressOf(trustProxy);
  app.get('/', async (request) => ({
    fastify: request.ip ?? null,
    ours: ours(request.raw) ?? null,
  }));
  return { trustProxy, app };
});

afterAll(async () => {
  for (const { app } of apps) await app.close();
});

/** X-Forwarded-For values as proxies and clients write them, and worse. */
const forwardedFor = fc.stringMatching(/^[ \t,a-f0-9.:\u00a0]{0,40}$/);

describe('clientAddressOf', () => {
  for (const { trustProxy, app } of apps) {
    it(`is Fastify's request.ip (trustProxy ${trustProxy})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.option(forwardedFor, { nil: undefined }),
          fc.constantFrom('127.0.0.1', '10.1.2.3', '::1'),
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

  it('takes the first forwarded entry behind trusted proxies, else the peer', async () => {
    const ip = async (trustProxy: boolean, header: string) => {
      const app = apps.find((a) => a.trustProxy === trustProxy)?.app;
      const res = await app?.inject({
        url: '/',
        remoteAddress: '10.0.0.1',
        headers: { 'x-forwarded-for': header },
      });
      return (res?.json() as { ours: string }).ours;
    };
    expect(await ip(true, ' 192.0.2.7 , 10.0.0.2')).toBe('192.0.2.7');
    expect(await ip(true, ', ,192.0.2.8')).toBe('192.0.2.8');
    expect(await ip(true, ' , ')).toBe('10.0.0.1');
    expect(await ip(false, '192.0.2.7')).toBe('10.0.0.1');
  });
});
