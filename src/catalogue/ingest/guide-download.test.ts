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
});
