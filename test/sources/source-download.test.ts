import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DownloadError, type DownloadLimits } from '../../src/catalogue/ingest/guide-download.js';
import { downloadGuide } from '../../src/sources/source-download.js';
import { conditionalGuide, startGuideServer, type GuideServer } from '../helpers/guide-server.js';

/** Short limits, so timeouts and retries happen within a test. */
const LIMITS: DownloadLimits = {
  timeoutMs: 3_000,
  idleTimeoutMs: 400,
  maxBytes: 64 * 1024,
  attempts: 3,
  retryDelayMs: 50,
};
const NONE = { etag: null, lastModified: null };
const BODY = Buffer.from(
  `<tv>${'<channel id="x"><display-name>X</display-name></channel>'.repeat(40)}</tv>`,
);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let server: GuideServer;
let dir: string;
let target: string;

beforeAll(async () => {
  server = await startGuideServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onair-download-'));
  target = join(dir, 'guide');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<DownloadError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return error as DownloadError;
}

describe('downloading a guide over http', () => {
  it('saves the body, with its hash and validators', async () => {
    server.on(
      '/ok.xml',
      conditionalGuide(() => ({
        body: BODY,
        etag: '"v1"',
        lastModified: 'Sun, 01 Mar 2026 06:00:00 GMT',
      })),
    );
    const got = await downloadGuide(`${server.base}/ok.xml`, NONE, target, LIMITS);
    expect(got).toEqual({
      kind: 'fetched',
      status: 200,
      bytes: BODY.length,
      sha256: sha256(BODY),
      etag: '"v1"',
      lastModified: 'Sun, 01 Mar 2026 06:00:00 GMT',
      attempts: 1,
    });
    expect(readFileSync(target)).toEqual(BODY);
  });

  it('sends the validators back and takes a 304 as "not modified", writing nothing', async () => {
    server.on(
      '/cond.xml',
      conditionalGuide(() => ({
        body: BODY,
        etag: '"v2"',
        lastModified: 'Sun, 01 Mar 2026 06:00:00 GMT',
      })),
    );
    const validators = { etag: '"v2"', lastModified: 'Sun, 01 Mar 2026 06:00:00 GMT' };
    const got = await downloadGuide(`${server.base}/cond.xml`, validators, target, LIMITS);
    expect(got).toEqual({ kind: 'not-modified', status: 304, attempts: 1 });
    expect(server.seen('/cond.xml').at(-1)).toMatchObject({
      ifNoneMatch: '"v2"',
      ifModifiedSince: 'Sun, 01 Mar 2026 06:00:00 GMT',
    });
    expect(() => statSync(target)).toThrow();
    // Another ETag: the guide changed, so it comes in full.
    const changed = await downloadGuide(
      `${server.base}/cond.xml`,
      { ...validators, etag: '"v1"' },
      target,
      LIMITS,
    );
    expect(changed).toMatchObject({ kind: 'fetched', status: 200, etag: '"v2"' });
  });

  it('retries 5xx answers with doubling waits, then succeeds', async () => {
    let calls = 0;
    server.on('/flaky.xml', (_req, res) => {
      calls++;
      if (calls < 3) {
        res.writeHead(503);
        res.end('busy');
        return;
      }
      res.writeHead(200, { 'content-length': BODY.length });
      res.end(BODY);
    });
    const got = await downloadGuide(`${server.base}/flaky.xml`, NONE, target, LIMITS);
    expect(got).toMatchObject({ kind: 'fetched', status: 200, attempts: 3 });
    const times = server.seen('/flaky.xml').map((r) => r.at);
    // At least the backoff between tries (a lower bound only; never an upper one).
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(LIMITS.retryDelayMs - 5);
    expect((times[2] ?? 0) - (times[1] ?? 0)).toBeGreaterThanOrEqual(2 * LIMITS.retryDelayMs - 5);
  });

  it('gives up after its tries on a server that keeps failing, naming the status', async () => {
    server.on('/down.xml', (_req, res) => {
      res.writeHead(500, 'Internal Server Error');
      res.end();
    });
    const error = await failure(downloadGuide(`${server.base}/down.xml`, NONE, target, LIMITS));
    expect(error.message).toBe(
      `HTTP 500 Internal Server Error from ${server.base}/down.xml (after 3 tries)`,
    );
    expect(error.status).toBe(500);
    expect(server.seen('/down.xml')).toHaveLength(3);
  });

  it('does not retry a 404', async () => {
    const error = await failure(downloadGuide(`${server.base}/gone.xml`, NONE, target, LIMITS));
    expect(error).toMatchObject({ status: 404, retryable: false });
    expect(error.message).toBe(`HTTP 404 Not Found from ${server.base}/gone.xml`);
    expect(server.seen('/gone.xml')).toHaveLength(1);
  });

  it('sends a URL’s credentials as Basic authentication, and never names them in errors', async () => {
    server.on('/private.xml', (req, res) => {
      const expected = `Basic ${Buffer.from('user:s3cr et').toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, 'Unauthorized');
        res.end();
        return;
      }
      res.end(BODY);
    });
    const withCredentials = server.base.replace('http://', 'http://user:s3cr%20et@');
    const got = await downloadGuide(
      `${withCredentials}/private.xml?token=t0ken`,
      NONE,
      target,
      LIMITS,
    );
    expect(got).toMatchObject({ kind: 'fetched', status: 200, bytes: BODY.length });
    const wrong = server.base.replace('http://', 'http://user:wrong@');
    const error = await failure(
      downloadGuide(`${wrong}/private.xml?token=t0ken`, NONE, target, LIMITS),
    );
    expect(error.message).toBe(`HTTP 401 Unauthorized from ${server.base}/private.xml`);
    expect(server.seen('/private.xml')).toHaveLength(2); // a 401 is not retried
  });

  it('retries a 429 too', async () => {
    let calls = 0;
    server.on('/limited.xml', (_req, res) => {
      if (++calls === 1) {
        res.writeHead(429, { 'retry-after': '0' });
        res.end();
        return;
      }
      res.end(BODY);
    });
    expect(await downloadGuide(`${server.base}/limited.xml`, NONE, target, LIMITS)).toMatchObject({
      kind: 'fetched',
      attempts: 2,
    });
  });

  it('retries a body cut short, and keeps only a complete one', async () => {
    let calls = 0;
    server.on('/cut.xml', (_req, res) => {
      res.writeHead(200, { 'content-length': BODY.length });
      if (++calls === 1) {
        res.write(BODY.subarray(0, 300));
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.end(BODY);
    });
    const got = await downloadGuide(`${server.base}/cut.xml`, NONE, target, LIMITS);
    expect(got).toMatchObject({ kind: 'fetched', bytes: BODY.length, attempts: 2 });
    expect(readFileSync(target)).toEqual(BODY);

    server.on('/always-cut.xml', (_req, res) => {
      res.writeHead(200, { 'content-length': BODY.length });
      res.write(BODY.subarray(0, 300));
      setTimeout(() => res.destroy(), 20);
    });
    const error = await failure(
      downloadGuide(`${server.base}/always-cut.xml`, NONE, target, LIMITS),
    );
    expect(error.message).toMatch(/cut short at 300 of \d+ bytes \(after 3 tries\)$/);
  });

  it('times out a server that does not answer, or stops sending', async () => {
    server.on('/silent.xml', () => undefined); // never answers
    const silent = await failure(
      downloadGuide(`${server.base}/silent.xml`, NONE, target, { ...LIMITS, attempts: 2 }),
    );
    expect(silent.message).toBe('no answer for 400 ms (after 2 tries)');
    expect(server.seen('/silent.xml')).toHaveLength(2);

    server.on('/stalls.xml', (_req, res) => {
      res.writeHead(200, { 'content-length': BODY.length });
      res.write(BODY.subarray(0, 100)); // then nothing more
    });
    const stalled = await failure(
      downloadGuide(`${server.base}/stalls.xml`, NONE, target, { ...LIMITS, attempts: 1 }),
    );
    expect(stalled.message).toBe('no data for 400 ms');

    // Bytes keep coming, but too slowly for the whole-download limit.
    server.on('/trickle.xml', (_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('<!-- -->'), 100);
      res.on('close', () => clearInterval(timer));
    });
    const slow = await failure(
      downloadGuide(`${server.base}/trickle.xml`, NONE, target, {
        ...LIMITS,
        timeoutMs: 600,
        attempts: 1,
      }),
    );
    expect(slow.message).toBe('no complete answer within 600 ms');

    // The limit is the whole download's, its tries together: a guide that trickles fails once
    // the time is up, not after a full limit for each of its tries.
    const before = server.seen('/trickle.xml').length;
    const retried = await failure(
      downloadGuide(`${server.base}/trickle.xml`, NONE, target, { ...LIMITS, timeoutMs: 600 }),
    );
    expect(retried.message).toMatch(/^no complete answer within 600 ms/);
    expect(server.seen('/trickle.xml').length - before).toBe(1);
  });

  it('refuses a guide over the size limit, by its Content-Length or as it streams, without retrying', async () => {
    const big = Buffer.alloc(LIMITS.maxBytes + 1, 0x20);
    server.on('/big.xml', (_req, res) => {
      res.writeHead(200, { 'content-length': big.length });
      res.end(big);
    });
    const declared = await failure(downloadGuide(`${server.base}/big.xml`, NONE, target, LIMITS));
    expect(declared.message).toBe(
      `the guide is larger than the limit of ${LIMITS.maxBytes} bytes (Content-Length ${big.length})`,
    );
    server.on('/big-chunked.xml', (_req, res) => {
      res.writeHead(200);
      res.write(big.subarray(0, 40_000));
      res.end(big.subarray(40_000));
    });
    const streamed = await failure(
      downloadGuide(`${server.base}/big-chunked.xml`, NONE, target, LIMITS),
    );
    expect(streamed.message).toBe(`the guide is larger than the limit of ${LIMITS.maxBytes} bytes`);
    expect(server.seen('/big.xml')).toHaveLength(1);
    expect(server.seen('/big-chunked.xml')).toHaveLength(1);
  });

  it('stops at once when its signal aborts (server shutdown)', async () => {
    server.on('/wait.xml', () => undefined);
    const controller = new AbortController();
    const reason = new DownloadError('stopped', { retryable: false });
    const download = downloadGuide(
      `${server.base}/wait.xml`,
      NONE,
      target,
      { ...LIMITS, idleTimeoutMs: 60_000 },
      controller.signal,
    );
    setTimeout(() => controller.abort(reason), 50);
    await expect(download).rejects.toBe(reason);
  });
});

describe('a local file as a source', () => {
  it('copies it, and counts an untouched file as not modified', async () => {
    const file = join(dir, 'guide.xml');
    writeFileSync(file, BODY);
    const got = await downloadGuide(file, NONE, target, LIMITS);
    if (got.kind !== 'fetched') throw new Error('expected the file to be read');
    expect(got).toMatchObject({ status: null, bytes: BODY.length, sha256: sha256(BODY) });
    expect(readFileSync(target)).toEqual(BODY);
    const again = await downloadGuide(
      file,
      { etag: got.etag, lastModified: got.lastModified },
      join(dir, 'b'),
      LIMITS,
    );
    expect(again).toEqual({ kind: 'not-modified', status: null, attempts: 1 });
    // Rewritten (a new modification time): read again.
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const touched = await downloadGuide(
      file,
      { etag: got.etag, lastModified: got.lastModified },
      join(dir, 'c'),
      LIMITS,
    );
    expect(touched.kind).toBe('fetched');
  });

  it('names a missing file, a directory and one over the limit', async () => {
    expect(
      (await failure(downloadGuide(join(dir, 'none.xml'), NONE, target, LIMITS))).message,
    ).toBe(`no such file: ${join(dir, 'none.xml')}`);
    expect((await failure(downloadGuide(dir, NONE, target, LIMITS))).message).toBe(
      `${dir} is not a file`,
    );
    const big = join(dir, 'big.xml');
    writeFileSync(big, Buffer.alloc(LIMITS.maxBytes + 1));
    expect((await failure(downloadGuide(big, NONE, target, LIMITS))).message).toBe(
      `the guide is larger than the limit of ${LIMITS.maxBytes} bytes`,
    );
  });
});
