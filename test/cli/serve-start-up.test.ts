import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/api-key.js';
import { generateFeedToken } from '../../src/domain/feed.js';
import {
  createCliSandbox,
  ONAIR_BIN,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';

/**
 * `serve` as a person starting it meets it: one line and exit 1 when its address is taken
 * (before any data is loaded), and logs a person can read on a terminal. About the process,
 * not the engine: SQLite only.
 */

let cli: CliSandbox;
let server: ServeProcess | null = null;
let blocker: Server | null = null;

beforeEach(() => {
  cli = createCliSandbox();
});

afterEach(async () => {
  await server?.stop();
  server = null;
  await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
  blocker = null;
  cli.dispose();
});

/** Takes a free port on 127.0.0.1 and holds it, as another program would. */
async function occupyPort(): Promise<number> {
  const holder = createServer();
  blocker = holder;
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('serve on an address it cannot have', () => {
  it('a busy port: one line naming PORT and HOST, exit 1, no stack, no data loaded', async () => {
    const port = await occupyPort();
    const result = await cli.run(['serve', '--demo'], { PORT: String(port), LOG_LEVEL: 'info' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `onair serve: port ${port} on 127.0.0.1 is in use; set PORT (and HOST) to another, e.g. PORT=${port + 1} npm start\n`,
    );
    expect(result.stdout).toBe('');
    // Found before the database was opened, so no demo data or key was made in vain.
    expect(readdirSync(cli.dir).filter((name) => name.startsWith('onair'))).toEqual([]);
  });

  it('says the command that was run: plain serve is not npm start', async () => {
    const port = await occupyPort();
    const result = await cli.run(['serve'], { PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `onair serve: port ${port} on 127.0.0.1 is in use; set PORT (and HOST) to another, e.g. PORT=${port + 1} bin/onair serve\n`,
    );
  });

  it('a HOST that is not this machine: one line naming HOST', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): no machine has it, unless set up for tests.
    const result = await cli.run(['serve'], { HOST: '192.0.2.123', PORT: '18123' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'onair serve: 192.0.2.123 is not an address of this machine; set HOST to one that is, e.g. HOST=127.0.0.1 bin/onair serve\n',
    );
    expect(existsSync(cli.env.DATABASE_URL ?? '')).toBe(false);
  });
});

describe('logs a person reads', () => {
  /**
   * Collects the server's stdout from now on; `lines(count)` waits until `count` lines followed
   * the banner and returns them.
   */
  const collect = (serve: ServeProcess) => {
    let out = serve.banner;
    serve.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const after = () => {
      const lines = out.split('\n').filter((line) => line !== '');
      // The banner ends with its "Docs:" line.
      return lines.slice(lines.findIndex((line) => line.startsWith('Docs: ')) + 1);
    };
    return async (count: number): Promise<string[]> => {
      await expect.poll(() => after().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
      return after();
    };
  };

  const secrets = { key: generateApiKey(), feed: generateFeedToken(), token: 'Zq0-tok_abcdef0123' };
  const secretUrls = [
    `/api/v1/countries?api_key=${secrets.key}`,
    `/api/v1/channels/${secrets.key}/programmes`,
    `/signin/confirm?token=${secrets.token}`,
    `/feeds/${secrets.feed}/guide.xml`,
  ];

  it('LOG_FORMAT=pretty: the banner first, then one short line per request, secrets redacted', async () => {
    server = await startServe(cli, [], { LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' });
    const logLines = collect(server);
    expect(server.banner.split('\n')[0]).toMatch(/^Onair is serving http:\/\/\S+ — /);
    for (const url of secretUrls) await fetch(`${server.url}${url}`).then((res) => res.text());
    const lines = await logLines(1 + secretUrls.length);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: listening at http:\/\/127\.0\.0\.1:\d+$/);
    const requests = lines.slice(1);
    expect(requests).toHaveLength(secretUrls.length);
    for (const line of requests) {
      expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/\S+ \d{3} [\d.]+ ms$/);
      for (const secret of Object.values(secrets)) expect(line).not.toContain(secret);
    }
    expect(requests.join('\n')).toContain('/feeds/[redacted]/guide.xml 404');
  });

  it('not a terminal and no LOG_FORMAT: JSON lines as before', async () => {
    server = await startServe(cli, [], { LOG_LEVEL: 'info' });
    const logLines = collect(server);
    await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}${secretUrls[0]}`);
    const lines = await logLines(3);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({ level: 30, msg: `listening at ${server.url}` });
    expect(parsed[1]).toMatchObject({ req: { url: '/healthz' }, msg: 'request completed' });
    expect(parsed[2]).toMatchObject({
      req: { method: 'GET', url: '/api/v1/countries?api_key=onair_[redacted]' },
      res: { statusCode: 401 },
    });
  });

  it('on a terminal (a pseudo-terminal by `script`), pretty without being asked', async () => {
    // `script` (util-linux) gives the command a terminal for stdout; PORT=0 and the banner say
    // where it listens.
    const child = spawn('script', ['-qefc', `${ONAIR_BIN} serve`, '/dev/null'], {
      cwd: cli.dir,
      env: { ...cli.env, PORT: '0', LOG_LEVEL: 'info', TERM: 'dumb' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await expect
        .poll(() => /serving (http:\/\/\S+)/.exec(out), { timeout: 20_000 })
        .not.toBeNull();
      const url = /serving (http:\/\/\S+)/.exec(out)?.[1] ?? '';
      await fetch(`${url}/healthz`);
      await expect
        .poll(() => out, { timeout: 10_000 })
        .toMatch(/\[\d\d:\d\d:\d\d\] INFO: GET \/healthz 200 [\d.]+ ms/);
      expect(out).not.toContain('"level"');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
