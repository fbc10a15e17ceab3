import { execFile, spawn } from 'node:child_process';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isColorSupported } from 'pino-pretty';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from './domain/api-key.js';
import { generateFeedToken } from './domain/feed.js';
import { createRequestLog } from './http/request-log.js';
import {
  createLogger,
  heldLines,
  LINE_HOLD_MS,
  lineWriterOf,
  MAX_HELD_CHARS,
  redactUrl,
} from './logger.js';

describe('redactUrl', () => {
  it('hides sign-in tokens in any case of the parameter name', () => {
    expect(redactUrl('/signin/confirm?token=abc-DEF_123')).toBe('/signin/confirm?token=[redacted]');
    expect(redactUrl('/x?a=1&TOKEN=secret#frag')).toBe('/x?a=1&TOKEN=[redacted]#frag');
  });

  it("hides a webhook's URL sent by the webhook form's channel search", () => {
    const hook = encodeURIComponent('https://hooks.example/in?secret=s3cr3t');
    expect(redactUrl(`/account/webhooks/new?url=${hook}&q=news`)).toBe(
      '/account/webhooks/new?url=[redacted]&q=news',
    );
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
    // The account's feed pages name a feed by its id, no credential: shown.
    expect(redactUrl('/account/feeds/new')).toBe('/account/feeds/new');
    expect(redactUrl('/account/feeds/2f1c/edit')).toBe('/account/feeds/2f1c/edit');
    expect(redactUrl('//feeds/T0ken/guide.xml')).toBe('//feeds/[redacted]/guide.xml');
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

describe('heldLines', () => {
  const destination = () => {
    const writes: string[] = [];
    return { writes, write: (chunk: string) => writes.push(chunk), flushSync: () => undefined };
  };
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('hands the lines written within the hold over together, once it has passed, in order', async () => {
    const to = destination();
    const lines = heldLines(to, -1, { holdMs: 60 });
    lines.write('a\n');
    await new Promise((resolve) => setImmediate(resolve));
    lines.write('b\n');
    await wait(10);
    lines.write('c\n');
    // Turns have passed, the hold has not.
    expect(to.writes).toEqual([]);
    await wait(80);
    expect(to.writes).toEqual(['a\nb\nc\n']);
    // The next line starts a new hold.
    lines.write('d\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(to.writes).toEqual(['a\nb\nc\n']);
    await wait(80);
    expect(to.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('hands the lines over at once when they reach the most it holds, and goes on holding after', async () => {
    const to = destination();
    const lines = heldLines(to, -1, { holdMs: 60, maxChars: 10 });
    lines.write('1234\n');
    expect(to.writes).toEqual([]);
    lines.write('5678\n');
    expect(to.writes).toEqual(['1234\n5678\n']);
    lines.write('9\n');
    expect(to.writes).toEqual(['1234\n5678\n']);
    await wait(80);
    expect(to.writes).toEqual(['1234\n5678\n', '9\n']);
  });

  it('holds 20 ms by default, and at most 64 Ki characters', async () => {
    expect(LINE_HOLD_MS).toBe(20);
    const to = destination();
    const lines = heldLines(to, -1);
    lines.write(`${'x'.repeat(MAX_HELD_CHARS - 2)}\n`);
    expect(to.writes).toHaveLength(0);
    lines.write('y\n');
    expect(to.writes).toHaveLength(1);
    lines.write('z\n');
    await wait(LINE_HOLD_MS + 30);
    expect(to.writes).toHaveLength(2);
  });

  it('writes the lines of a process that goes on running within the hold, not at its exit', async () => {
    const child = spawn(process.execPath, [
      '--import',
      'tsx',
      fileURLToPath(new URL('../test/helpers/log-then-exit.ts', import.meta.url)),
      '3',
      'stay',
    ]);
    try {
      const logged = new Promise<number>((resolve) =>
        child.stderr.on('data', () => resolve(performance.now())),
      );
      let text = '';
      const arrived = new Promise<number>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.split('\n').length > 3) resolve(performance.now());
        }),
      );
      const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(Infinity)));
      const at = await Promise.race([arrived, exited]);
      // Within the hold and a loaded machine's delays, well before the child's exit 5 s on.
      expect(at - (await logged)).toBeLessThan(2000);
      expect(
        text
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { i: number }).i),
      ).toEqual([0, 1, 2]);
    } finally {
      child.kill();
    }
  });

  // As `onair serve` logs: JSON to standard output through pino's asynchronous destination.
  it.each(['exit', 'end'])('loses no held line when the process ends (%s)', async (how) => {
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      fileURLToPath(new URL('../test/helpers/log-then-exit.ts', import.meta.url)),
      '5000',
      how,
    ]);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number });
    expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});

describe('createLogger formats', () => {
  /** A destination that keeps what is written, optionally claiming to be a terminal. */
  const capture = (isTTY = false) => {
    let text = '';
    const stream = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          text += chunk.toString('utf8');
          done();
        },
      }),
      { isTTY },
    );
    return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
  };

  /** Logs one answered request the way the server does, URL and all. */
  const logRequest = (format: 'json' | 'pretty', url: string, isTTY = false) => {
    const out = capture(isTTY);
    const log = createLogger('info', out.stream, format);
    const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url });
    createRequestLog(
      log,
      () => '203.0.113.9',
    )({
      reqId: 'req-7',
      req,
      route: '/api/v1/countries',
      statusCode: 200,
      responseTime: 1.234,
      accountId: 'f1e2d3c4-0000-4000-8000-000000000001',
    });
    return out.lines();
  };

  it('writes JSON lines by default: the request, its route, status, bytes, time and account', () => {
    const lines = logRequest('json', '/api/v1/countries');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: hostname(),
      reqId: 'req-7',
      req: {
        method: 'GET',
        url: '/api/v1/countries',
        remoteAddress: '203.0.113.9',
        route: '/api/v1/countries',
      },
      res: { statusCode: 200, bytes: 0 },
      responseTime: 1.234,
      accountId: 'f1e2d3c4-0000-4000-8000-000000000001',
      msg: 'request completed',
    });
  });

  it('writes valid JSON whatever the numbers: null where pino would write null', () => {
    const out = capture();
    // An injected request's socket counts no bytes.
    const req = Object.assign(new IncomingMessage({} as Socket), { method: 'GET', url: '/' });
    createRequestLog(
      createLogger('info', out.stream),
      () => undefined,
    )({
      reqId: 'req-1',
      req,
      route: undefined,
      statusCode: 400,
      responseTime: Number.NaN,
      accountId: undefined,
    });
    expect(JSON.parse(out.lines()[0] ?? '')).toMatchObject({
      res: { statusCode: 400, bytes: null },
      responseTime: null,
    });
  });

  // The access line is written by hand (http/request-log.ts); pino must read it as its own.
  it('writes the access line as pino writes the same object, bindings and all', () => {
    const out = capture();
    const log = createLogger('info', out.stream).child({ service: 'x"y' });
    const fields = { reqId: 'req-"1', req: { method: 'GET', url: '/a?b=\u00e9"' }, n: 2 };
    const members = Object.entries(fields).map(([k, v]) => `,"${k}":${JSON.stringify(v)}`);
    lineWriterOf(log)(30, members.join(''), 'done');
    log.info(fields, 'done');
    const [hand, own] = out.lines().map((line) => JSON.parse(line) as { time: number });
    expect(hand).toEqual({ ...own, time: hand?.time });
    expect(Object.keys(hand ?? {})).toEqual(Object.keys(own ?? {}));
    // Below info, nothing is written.
    log.level = 'warn';
    const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url: '/' });
    createRequestLog(
      log,
      () => undefined,
    )({
      reqId: 'req-2',
      req,
      route: undefined,
      statusCode: 404,
      responseTime: 1,
      accountId: undefined,
    });
    expect(out.lines()).toHaveLength(2);
  });

  it('writes a request as one short line when pretty: time, level, method, URL, status, time taken', () => {
    const lines = logRequest('pretty', '/api/v1/countries?x=1');
    expect(lines).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/api\/v1\/countries\?x=1 200 1\.2 ms$/),
    ]);
  });

  it('colours only a terminal', () => {
    const escape = '\u001b[';
    const plain = logRequest('pretty', '/healthz', false)[0] ?? '';
    expect(plain).not.toContain(escape);
    // Colour also depends on colorette's view of the environment (NO_COLOR, TERM=dumb).
    const coloured = logRequest('pretty', '/healthz', true)[0] ?? '';
    expect(coloured.includes(escape)).toBe(isColorSupported);
    expect(
      coloured
        .split(escape)
        .map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*m/, '')))
        .join(''),
    ).toBe(plain);
  });

  it('keeps the service\u2019s own lines short: message, then their fields on the same line', () => {
    const out = capture();
    const log = createLogger('info', out.stream, 'pretty');
    log.info({ source: 3, programmes: 120 }, 'source refreshed');
    log.debug('not at info');
    log.child({ reqId: 'req-9' }).error('something failed');
    expect(out.lines()).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\] INFO: source refreshed \{"source":3,"programmes":120\}$/,
      ),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] ERROR: something failed \(req-9\)$/),
    ]);
  });

  it('carries no secret in a pretty line: keys, sign-in tokens, feed tokens stay redacted', () => {
    const key = generateApiKey();
    const feed = generateFeedToken();
    const signIn = 'Zq0_sign-in-token-0123456789abcdefghijklmnopq';
    for (const url of [
      `/api/v1/countries?api_key=${key}`,
      `/api/v1/channels/${key.replace('_', '%5F')}/programmes`,
      `/signin/confirm?token=${signIn}`,
      `/feeds/${feed}/guide.xml.gz`,
    ]) {
      for (const isTTY of [false, true]) {
        const [line, ...rest] = logRequest('pretty', url, isTTY);
        expect(rest).toEqual([]);
        for (const secret of [key.slice(6), feed, signIn]) expect(line).not.toContain(secret);
        expect(line).toMatch(/\[redacted\]/);
      }
    }
  });
});
