import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeEach(async () => {
  t = await createTestApp();
});

afterEach(async () => {
  await t.close();
});

describe('errors are JSON everywhere', () => {
  it('an unknown route under /api/ outside /api/v1 → 404 NOT_FOUND (elsewhere: the 404 page)', async () => {
    const res = await t.get('/api/nowhere');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    // Pages answer as pages (test/web/not-found.test.ts).
    expect((await t.get('/nowhere')).headers['content-type']).toMatch(/^text\/html/);
  });

  it('an unknown route under /api/v1 → 401 without a key, 404 NOT_FOUND with one', async () => {
    const { key } = await t.customer();
    for (const url of [
      '/api/v1',
      '/api/v1/',
      '/api/v1/nope',
      '/api/v1/countries/UK',
      '/api/v2/countries',
    ]) {
      const anonymous = await t.get(url);
      if (url.startsWith('/api/v1')) {
        expect(anonymous.statusCode, url).toBe(401);
        expect(anonymous.json().code).toBe('UNAUTHORIZED');
      }
      const keyed = await t.get(url, key);
      expect(keyed.statusCode, url).toBe(404);
      expect(keyed.json()).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    }
  });

  it('a wrong method on a v1 route → 401 without a key, 405 with one', async () => {
    const { key } = await t.customer();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const anonymous = await t.inject({ method, url: '/api/v1/countries' });
      expect(anonymous.statusCode).toBe(401);
      const keyed = await t.inject({
        method,
        url: '/api/v1/countries',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: '{"x":1}',
      });
      expect(keyed.statusCode, method).toBe(405);
      expect(keyed.headers.allow).toBe('GET, HEAD');
      expect(keyed.json()).toEqual({ error: expect.any(String), code: 'METHOD_NOT_ALLOWED' });
    }
    // A body over the 1 MB limit: the method is what is wrong, said before the body is read.
    const big = await t.inject({
      method: 'POST',
      url: '/api/v1/countries',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: `{"x":"${'a'.repeat(2_000_000)}"}`,
    });
    expect([big.statusCode, big.json().code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    expect(big.headers.connection).toBe('close');
    // Without a body the connection stays open for the next request.
    const bodiless = await t.inject({
      method: 'DELETE',
      url: '/api/v1/countries',
      headers: { authorization: `Bearer ${key}` },
    });
    expect([bodiless.statusCode, bodiless.headers.connection]).toEqual([405, 'keep-alive']);
  });

  it('a wrong method on an ops route → 405 JSON, as on v1', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      const res = await t.inject({ method: 'POST', url });
      expect(res.statusCode, url).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json()).toEqual({ error: expect.any(String), code: 'METHOD_NOT_ALLOWED' });
    }
  });

  it('HEAD works like GET without a body', async () => {
    const { key } = await t.customer();
    const res = await t.inject({
      method: 'HEAD',
      url: '/api/v1/countries',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
  });

  it('a malformed URL escape → 400 JSON', async () => {
    const { key } = await t.customer();
    const res = await t.get('/api/v1/countries/%E0%A4%A/channels', key);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toEqual(expect.any(String));
  });

  it('an internal error → 500 INTERNAL_ERROR without details', async () => {
    const { key } = await t.customer();
    // A statement that fails at run time: the table it reads is gone.
    await t.temp.sql('DROP TABLE programmes');
    await t.temp.sql('DROP TABLE playground_channels');
    await t.temp.sql('DROP TABLE channels');
    const broken = await t.get('/api/v1/countries', key);
    expect(broken.statusCode).toBe(500);
    expect(broken.json()).toEqual({ error: 'Internal server error', code: 'INTERNAL_ERROR' });
    expect(broken.body).not.toMatch(/sqlite|postgres|stack|no such table|does not exist/i);
  });
});

describe('ops endpoints', () => {
  it('/healthz answers without a key', async () => {
    const res = await t.get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is ready while storage answers, 503 SERVICE_UNAVAILABLE when it does not', async () => {
    expect((await t.get('/readyz')).json()).toEqual({ status: 'ready' });
    await t.temp.store.close();
    const res = await t.get('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('/metrics', () => {
  it('answers anyone when no METRICS_TOKEN is set', async () => {
    const res = await t.get('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('onair_http_requests_total');
  });

  it('with METRICS_TOKEN, answers only its bearer: 401 UNAUTHORIZED JSON otherwise', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const guarded = await createTestApp({ METRICS_TOKEN: token });
    try {
      for (const authorization of [
        undefined,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token}x`,
        token,
        `Basic ${Buffer.from(`x:${token}`).toString('base64')}`,
      ]) {
        const res = await guarded.app.inject({
          url: '/metrics',
          headers: authorization === undefined ? {} : { authorization },
        });
        expect(res.statusCode, String(authorization)).toBe(401);
        expect(res.json()).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(res.body).not.toContain(token);
      }
      const res = await guarded.app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('onair_http_requests_total');
      // The token stays out of the logs.
      expect(guarded.logs()).not.toContain(token);
    } finally {
      await guarded.close();
    }
  });
});

describe('over a real socket', () => {
  it('a wrong method announcing a body over the limit → 405 at once, then the connection closes', async () => {
    const { key } = await t.customer();
    if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    // 100 MB announced, none sent yet: the answer does not wait for the body, and the server
    // does not wait for it either (the connection could not serve another request after it).
    // No body byte is sent: data the server never reads would reset the connection on close.
    socket.write(
      `POST /api/v1/countries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n',
    );
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5_000);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.destroy();
    expect(closed).toBe(true);
    expect(received).toMatch(/^HTTP\/1\.1 405 /);
    expect(received.toLowerCase()).toContain('\r\nconnection: close\r\n');
  });

  it('a wrong method with a small body → 405, and the connection serves the next request', async () => {
    const { key } = await t.customer();
    if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const body = 'x'.repeat(20_000);
    socket.write(
      `POST /api/v1/countries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}` +
        `GET /api/v1/countries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    );
    const deadline = Date.now() + 5_000;
    while (!/HTTP\/1\.1 200 [^]*\r\n\r\n\[/.test(received) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 405 [^]*HTTP\/1\.1 200 /);
    expect(received.toLowerCase()).not.toContain('connection: close');
  });

  it.each([
    ['oversized headers', '/api/v1/countries', { 'x-big': 'x'.repeat(100_000) }],
    // The URL counts in the same 16 KB: the message names it, not only the headers.
    ['an oversized URL', `/api/v1/channels/search?q=${'a'.repeat(16_500)}`, {}],
  ])('%s → 431 with a JSON body and code', async (_, path, headers) => {
    if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          headers,
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({
      error:
        'The URL and headers together are too large (16 KB at most): send a shorter URL or fewer headers',
      code: 'HEADERS_TOO_LARGE',
    });
  });

  /** What the server answers to `requestLine`, sent as raw bytes. */
  async function rawAnswer(requestLine: Buffer): Promise<string> {
    if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    return new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end(Buffer.concat([requestLine, Buffer.from('\r\nHost: x\r\n\r\n')]));
      });
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  it('a URL with raw UTF-8 → 400 saying to percent-encode it', async () => {
    for (const line of [
      Buffer.from('GET /api/v1/programmes/search?q=t\u00e9l\u00e9 HTTP/1.1', 'utf8'),
      Buffer.from('GET /api/v1/channels/caf\u00e9/programmes HTTP/1.1', 'utf8'),
    ]) {
      const answer = await rawAnswer(line);
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: expect.stringContaining('must be percent-encoded (é as %C3%A9'),
        code: 'BAD_REQUEST',
      });
    }
  });

  it('a request whose body never comes → 408 after REQUEST_TIMEOUT, its connection closed', async () => {
    const slow = await createTestApp({ REQUEST_TIMEOUT: '1' });
    try {
      await slow.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = slow.app.server.address() as AddressInfo;
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          // Headers and the start of a body it says is longer, then nothing.
          socket.write(
            'POST /signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
              'Content-Length: 8000\r\n\r\nemail=',
          );
        });
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        code: 'REQUEST_TIMEOUT',
      });
      // Within a second or so of the limit, not Node's five minutes (or never, as it was).
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await slow.close();
    }
  });

  it('another malformed request → 400 Malformed HTTP request', async () => {
    // A space splits the URL: what follows is no HTTP version (llhttp cannot tell it apart).
    const answer = await rawAnswer(Buffer.from('GET /api/v1/channels/search?q=a b HTTP/1.1'));
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'Malformed HTTP request',
      code: 'BAD_REQUEST',
    });
  });
});
