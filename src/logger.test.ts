import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from './domain/api-key.js';
import { generateFeedToken } from './domain/feed.js';
import { createLogger, redactUrl } from './logger.js';

describe('redactUrl', () => {
  it('hides sign-in tokens in any case of the parameter name', () => {
    expect(redactUrl('/signin/confirm?token=abc-DEF_123')).toBe('/signin/confirm?token=[redacted]');
    expect(redactUrl('/x?a=1&TOKEN=secret#frag')).toBe('/x?a=1&TOKEN=[redacted]#frag');
  });

  it('hides an API key anywhere in the URL, also with its underscore percent-encoded', () => {
    const key = generateApiKey();
    const encoded = key.replace('_', '%5F');
    for (const url of [
      `/api/v1/countries?api_key=${key}`,
      `/api/v1/channels/${key}/programmes`,
      `/api/v1/channels/search?q=${encoded}&country=UK`,
    ]) {
      const redacted = redactUrl(url);
      expect(redacted).not.toContain(key.slice(6));
      expect(redacted).toContain('onair_[redacted]');
    }
  });

  it("hides a feed's token, the path segment after /feeds/, whatever it looks like", () => {
    const token = generateFeedToken();
    expect(redactUrl(`/feeds/${token}/guide.xml.gz`)).toBe('/feeds/[redacted]/guide.xml.gz');
    expect(redactUrl(`/FEEDS/${token}?x=1`)).toBe('/FEEDS/[redacted]?x=1');
    expect(redactUrl('/feeds/not%20a%20token/guide.xml')).toBe('/feeds/[redacted]/guide.xml');
  });

  it('leaves ordinary URLs alone', () => {
    const url = '/api/v1/channels/search?q=onair_short&country=UK';
    expect(redactUrl(url)).toBe(url);
  });
});

describe('createLogger', () => {
  /** A log reader that has gone away: every write fails as a closed pipe does. */
  const closedPipe = () => {
    let writes = 0;
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        writes++;
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    return { stream, writes: () => writes };
  };

  it('goes on logging (nothing thrown, no unhandled error) after its reader went away', async () => {
    const pipe = closedPipe();
    const log = createLogger('info', pipe.stream);
    log.info('first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(() => log.info('second')).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pipe.writes()).toBeGreaterThanOrEqual(1);
    expect(pipe.stream.listenerCount('error')).toBeGreaterThan(0);
  });
});
