import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  displayLocation,
  DownloadError,
  downloadLimits,
  requestGuide,
  unsupportedScheme,
  withRetries,
} from './guide-download.js';

describe('displayLocation', () => {
  it('shows a URL of any scheme without its credentials or query', () => {
    expect(displayLocation('https://user:s3cretPW@guides.example/ie.xml?token=QTOKEN123')).toBe(
      'https://guides.example/ie.xml',
    );
    expect(displayLocation('ftp://user:s3cretPW@127.0.0.1/x.xml?token=QTOKEN123')).toBe(
      'ftp://127.0.0.1/x.xml',
    );
    expect(displayLocation('htps://u:s3cretPW@host/x.xml#frag')).toBe('htps://host/x.xml');
  });

  it('hides the credentials and query of a URL that does not parse', () => {
    for (const url of [
      'http://u:s3cretPW@host:99999/x.xml?token=QTOKEN123',
      'http://u:s3cret/PW@host:99999/x.xml',
      'ftp://u:s3cretPW@ho st/x.xml?token=QTOKEN123',
    ]) {
      const shown = displayLocation(url);
      expect(shown, url).not.toMatch(/s3cret|PW|QTOKEN123/);
      expect(shown, url).toMatch(/^(http|ftp):\/\/ho/);
    }
  });

  it('shows a file path as it is, a ? or @ in it included', () => {
    expect(displayLocation('/srv/guides/a@b?.xml')).toBe('/srv/guides/a@b?.xml');
    expect(displayLocation('guides/ie.xml')).toBe('guides/ie.xml');
  });
});

describe('unsupportedScheme', () => {
  it('names the scheme of a URL other than http(s), and only its scheme', () => {
    expect(unsupportedScheme('ftp://user:s3cretPW@127.0.0.1/x.xml')).toBe(
      'unsupported URL scheme "ftp:": give an http(s) URL or a file path',
    );
    expect(unsupportedScheme('HTPS://u:s3cretPW@host/x.xml')).toBe(
      'unsupported URL scheme "htps:": give an http(s) URL or a file path',
    );
  });

  it('has nothing to say of an http(s) URL or a file path', () => {
    expect(unsupportedScheme('HTTPS://host/x.xml')).toBeNull();
    expect(unsupportedScheme('http://host/x.xml')).toBeNull();
    expect(unsupportedScheme('/srv/guides/ie.xml')).toBeNull();
    expect(unsupportedScheme('C:\\guides\\ie.xml')).toBeNull();
  });
});

describe('requestGuide', () => {
  it('refuses a URL that does not parse at once, as not worth another try, without its secrets', async () => {
    const limits = downloadLimits(60_000, 1024 * 1024);
    let tries = 0;
    const started = Date.now();
    const refusal = await withRetries(
      limits,
      () => {
        tries++;
        return requestGuide('http://u:s3cretPW@host:99999/x.xml?token=QTOKEN123', limits);
      },
      {},
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DownloadError);
    expect(refusal).toMatchObject({
      retryable: false,
      message: 'http://host:99999/x.xml is not a valid URL',
    });
    // One try, no wait for a second (the retries wait 2 s first).
    expect(tries).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('says why, and tries once, when the same request can only fail again', async () => {
    let requests = 0;
    const server = createServer((request, response) => {
      requests++;
      const port = (server.address() as AddressInfo).port;
      if (request.url === '/loop') response.writeHead(302, { location: '/loop' }).end();
      else if (request.url === '/credentials') {
        response.writeHead(302, { location: `http://u:pw@127.0.0.1:${port}/x.xml` }).end();
      } else response.writeHead(200, { 'content-encoding': 'gzip' }).end('<tv></tv>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const limits = downloadLimits(60_000, 1024 * 1024);
    const fetchAll = (url: string) => {
      let tries = 0;
      return withRetries(
        limits,
        async () => {
          tries++;
          const answer = await requestGuide(url, limits);
          try {
            for await (const chunk of answer.chunks) void chunk;
          } finally {
            await answer.close();
          }
        },
        {},
      ).then(
        () => ({ tries, message: 'fetched' }),
        (error: unknown) => ({ tries, message: (error as Error).message }),
      );
    };
    try {
      const started = Date.now();
      expect(await fetchAll(`${base}/loop`)).toEqual({
        tries: 1,
        message: `cannot fetch ${base}/loop: more than 20 redirects (a redirect loop?)`,
      });
      expect(requests).toBe(21);
      expect(await fetchAll(`${base}/credentials`)).toEqual({
        tries: 1,
        message: `cannot fetch ${base}/credentials: a redirect to an address with a user name or password in it, which fetch refuses`,
      });
      expect(await fetchAll(`${base}/gzip`)).toEqual({
        tries: 1,
        message: `cannot fetch ${base}/gzip: the server said Content-Encoding gzip (or deflate) but sent other bytes`,
      });
      expect(await fetchAll('http://127.0.0.1:1/guide.xml')).toEqual({
        tries: 1,
        message:
          'cannot fetch http://127.0.0.1:1/guide.xml: fetch refuses the port it, or a redirect from it, names (a port of another protocol, such as 1, 25 or 6000)',
      });
      // No retry waited (the first waits 2 s).
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.close();
    }
  });
});
