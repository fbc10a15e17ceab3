import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.js';
import { createRequestLog, millisecondsJson, type AnsweredRequest } from './request-log.js';

/** A logger at info whose lines are kept, parsed. */
function capturedLogger() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const log = createLogger('info', stream);
  const lines = () =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, lines, text: () => text };
}

/** A request on `socket` (a new connection by default). */
function request(url: string, socket = new Socket(), headers: Record<string, string> = {}) {
  return Object.assign(new IncomingMessage(socket), { method: 'GET', url, headers });
}

const answered = (over: Partial<AnsweredRequest> & { req: IncomingMessage }): AnsweredRequest => ({
  reqId: 'req-1',
  route: '/api/v1/countries',
  statusCode: 200,
  responseTime: 1.5,
  accountId: 'f1e2d3c4-0000-4000-8000-000000000001',
  ...over,
});

describe('millisecondsJson', () => {
  it('writes what JSON writes for the time rounded to the microsecond', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (ms) => {
        expect(millisecondsJson(ms)).toBe(JSON.stringify(Math.round(ms * 1000) / 1000));
      }),
      { numRuns: 20_000 },
    );
    expect(
      [0, 12, 0.6, 1.234, 0.0004, 0.0005, 0.061, 100.5, 2.0999999].map(millisecondsJson),
    ).toEqual(['0', '12', '0.6', '1.234', '0', '0.001', '0.061', '100.5', '2.1']);
  });

  it('writes null where pino would (not finite), and a sign below zero', () => {
    expect([Number.NaN, Infinity, -Infinity].map(millisecondsJson)).toEqual([
      'null',
      'null',
      'null',
    ]);
    expect([-1.25, -0.0001].map(millisecondsJson)).toEqual(['-1.25', '0']);
  });
});

describe('createRequestLog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes any text as JSON: quotes, backslashes, controls, accents and lone surrogates', () => {
    const { log, lines } = capturedLogger();
    const write = createRequestLog(log, () => '203.0.113.9');
    const texts = ['/a?b="c"', '/a\\b', '/tab\there\u0001', '/télé/\u{1F4FA}', '/x\ud800y'];
    for (const [i, url] of texts.entries()) {
      // Each written twice: once made, once remembered.
      for (let round = 0; round < 2; round++) {
        write(
          answered({ req: request(url), reqId: `req-"${i}`, route: url, accountId: `a\\${url}` }),
        );
      }
    }
    const logged = lines();
    expect(logged).toHaveLength(texts.length * 2);
    // JSON.stringify writes a lone surrogate as \ud800, which JSON.parse turns back into it.
    expect(logged.map((line) => (line.req as { url: string }).url)).toEqual(
      texts.flatMap((url) => [url, url]),
    );
    expect(logged.map((line) => (line.req as { route: string }).route)).toEqual(
      texts.flatMap((url) => [url, url]),
    );
    expect(logged.map((line) => line.accountId)).toEqual(
      texts.flatMap((url) => [`a\\${url}`, `a\\${url}`]),
    );
    expect(logged.map((line) => line.reqId)).toEqual(
      texts.flatMap((_, i) => [`req-"${i}`, `req-"${i}`]),
    );
  });

  it('writes a URL too long to remember, and many URLs, each as it is', () => {
    const { log, lines } = capturedLogger();
    const write = createRequestLog(log, () => undefined);
    const long = `/api/v1/programmes/search?q=${'a"'.repeat(400)}`;
    const urls = [long, ...Array.from({ length: 10_050 }, (_, i) => `/x?i=${i}`), long];
    for (const url of urls) write(answered({ req: request(url) }));
    expect(lines().map((line) => (line.req as { url: string }).url)).toEqual(urls);
  });

  it('writes the time of the line to the millisecond, also when many lines share one', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_764_252_000_000);
    const { log, lines } = capturedLogger();
    const write = createRequestLog(log, () => undefined);
    write(answered({ req: request('/a') }));
    write(answered({ req: request('/b') }));
    vi.setSystemTime(1_764_252_000_001);
    write(answered({ req: request('/c') }));
    vi.setSystemTime(1_764_252_003_000);
    write(answered({ req: request('/d') }));
    expect(lines().map((line) => line.time)).toEqual([
      1_764_252_000_000, 1_764_252_000_000, 1_764_252_000_001, 1_764_252_003_000,
    ]);
  });

  it("writes a connection's address, or each request's behind trusted proxies", () => {
    const forwarded = (req: IncomingMessage) => req.headers['x-forwarded-for'] as string;
    const socket = new Socket();
    const first = request('/a', socket, { 'x-forwarded-for': '198.51.100.1' });
    const second = request('/b', socket, { 'x-forwarded-for': '198.51.100.2' });
    const address = (addressPerConnection: boolean) => {
      const { log, lines } = capturedLogger();
      const write = createRequestLog(log, forwarded, { addressPerConnection });
      write(answered({ req: first }));
      write(answered({ req: second }));
      write(answered({ req: request('/c', new Socket(), { 'x-forwarded-for': '"odd"' }) }));
      return lines().map((line) => (line.req as { remoteAddress: string }).remoteAddress);
    };
    expect(address(false)).toEqual(['198.51.100.1', '198.51.100.2', '"odd"']);
    // A connection's peer does not change: its first request's address stands for it.
    expect(address(true)).toEqual(['198.51.100.1', '198.51.100.1', '"odd"']);
  });
});
