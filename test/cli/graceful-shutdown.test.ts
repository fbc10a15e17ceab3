import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';

/**
 * SIGTERM on a real `bin/onair serve`: it stops accepting, lets every response in flight reach
 * its client (also a large days=all body that a slow client is still reading, whose response
 * has ended in Node but sits in its buffers), closes the database cleanly and exits in bounded
 * time; a client that stops reading altogether is cut when SHUTDOWN_TIMEOUT runs out.
 */

let cli: CliSandbox;
let key: string;
let channelId: string;
/** The days=all body as a quick client reads it: what every slow reader must get too. */
let expected: { length: number; sha256: string };

const PROGRAMMES = 9_000;

/** One channel with PROGRAMMES programmes of long descriptions: a days=all body of ~25 MB. */
async function writeGuide(path: string): Promise<void> {
  const out = createWriteStream(path);
  const time = (ms: number) =>
    `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
  const write = (text: string) =>
    out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', r));
  await write('<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n');
  await write('<channel id="big.ie"><display-name>Big</display-name></channel>\n');
  const base = Date.UTC(2026, 0, 1);
  const desc = 'A long description of the programme. '.repeat(65);
  for (let i = 0; i < PROGRAMMES; i++) {
    const start = base + i * 1_800_000;
    await write(
      `<programme start="${time(start)}" stop="${time(start + 1_800_000)}" channel="big.ie"><title>Show ${i}</title><desc>${desc}${i}</desc></programme>\n`,
    );
  }
  await write('</tv>\n');
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

beforeAll(async () => {
  cli = createCliSandbox();
  const guide = join(cli.dir, 'big.xml');
  await writeGuide(guide);
  await cli.json(['ingest', guide, '--country', 'IE']);
  await cli.json([
    'accounts',
    'create',
    '--email',
    'slow@example.com',
    '--verified',
    '--rate-limit',
    '1000',
  ]);
  key = (await cli.json<{ key: string }>(['keys', 'create', '--email', 'slow@example.com'])).key;
  const server = await startServe(cli);
  try {
    const headers = { authorization: `Bearer ${key}` };
    const search = (await (
      await fetch(`${server.url}/api/v1/channels/search?q=big`, { headers })
    ).json()) as {
      results: { channelId: string }[];
    };
    channelId = search.results[0]?.channelId ?? '';
    const body = Buffer.from(
      await (
        await fetch(`${server.url}/api/v1/channels/${channelId}/programmes?days=all`, { headers })
      ).arrayBuffer(),
    );
    expected = { length: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    expect(expected.length).toBeGreaterThan(20_000_000);
  } finally {
    await server.stop();
  }
}, 180_000);

afterAll(() => {
  cli?.dispose();
});

/** A client reading the days=all body 64 KiB at a time, `pauseMs` apart (or not at all). */
interface SlowReader {
  socket: Socket;
  /** Bytes of body received so far. */
  received(): number;
  /** Resolves when the server closes the connection: the body as received, and whether complete. */
  done: Promise<{ length: number; sha256: string; complete: boolean }>;
  /** Reads at full speed from now on. */
  hurry(): void;
}

function slowReader(url: string, pauseMs: number | null): Promise<SlowReader> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.setNoDelay(true);
  const chunks: Buffer[] = [];
  let headerEnd = -1;
  let bodyBytes = 0;
  let contentLength = -1;
  let pause = pauseMs;
  return new Promise((resolveReader, reject) => {
    const done = new Promise<{ length: number; sha256: string; complete: boolean }>((resolve) => {
      socket.on('close', () => {
        const all = Buffer.concat(chunks);
        const body = headerEnd < 0 ? Buffer.alloc(0) : all.subarray(headerEnd + 4);
        resolve({
          length: body.length,
          sha256: createHash('sha256').update(body).digest('hex'),
          complete: body.length === contentLength,
        });
      });
    });
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(
        `GET /api/v1/channels/${channelId}/programmes?days=all HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (headerEnd < 0) {
        const all = Buffer.concat(chunks);
        headerEnd = all.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const head = all.subarray(0, headerEnd).toString('latin1');
        if (!head.startsWith('HTTP/1.1 200')) reject(new Error(`not 200: ${head}`));
        contentLength = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? -1);
        bodyBytes = all.length - headerEnd - 4;
        resolveReader({
          socket,
          received: () => bodyBytes,
          done,
          hurry() {
            pause = 0;
            socket.resume();
          },
        });
      } else {
        bodyBytes += chunk.length;
      }
      if (pause === 0) return;
      socket.pause();
      if (pause !== null) setTimeout(() => socket.resume(), pause);
    });
  });
}

/** An open keep-alive connection that has had its answer and now sits idle. */
async function idleConnection(url: string): Promise<Socket> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    socket.on('connect', () => socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    socket.once('data', () => resolve());
  });
  return socket;
}

function exitOf(server: ServeProcess): Promise<{ code: number | null; at: number }> {
  return new Promise((resolve) => {
    server.child.removeAllListeners('exit');
    server.child.once('exit', (code) => resolve({ code, at: Date.now() }));
  });
}

async function refusesConnections(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return false;
  } catch {
    return true;
  }
}

describe('SIGTERM', () => {
  it('stops accepting, lets slow readers get every byte, closes the database and exits', async () => {
    const server = await startServe(cli, [], { LOG_LEVEL: 'info' });
    let log = '';
    server.child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const readers = await Promise.all([slowReader(server.url, 8), slowReader(server.url, 12)]);
    const idle = await idleConnection(server.url);
    const idleClosed = new Promise<number>((resolve) =>
      idle.once('close', () => resolve(Date.now())),
    );
    // Both responses have been answered in full by Node; most of their bytes wait in buffers.
    await new Promise((r) => setTimeout(r, 300));
    expect(readers[0]?.received()).toBeLessThan(expected.length / 2);

    const exited = exitOf(server);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');

    // New connections are refused at once, while the slow readers are still reading.
    await expect.poll(() => refusesConnections(server.url), { timeout: 2_000 }).toBe(true);
    expect(readers[0]?.received()).toBeLessThan(expected.length);
    // The idle keep-alive connection is closed promptly, not kept until the timeout.
    expect((await idleClosed) - signalledAt).toBeLessThan(2_000);

    const results = await Promise.all(readers.map((r) => r.done));
    const readersDoneAt = Date.now();
    for (const result of results) {
      expect(result).toEqual({ ...expected, complete: true });
    }
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at).toBeGreaterThanOrEqual(readersDoneAt - 50);
    expect(at - signalledAt).toBeLessThan(20_000);
    // Closed cleanly: the last connection to close checkpoints and removes the WAL file.
    const wal = join(cli.dir, 'onair.db-wal');
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    expect(log).toContain('shutting down');
    expect(log).toMatch(/"cut":0/);
  });

  it('cuts a client that stops reading once SHUTDOWN_TIMEOUT has passed, and still exits cleanly', async () => {
    const server = await startServe(cli, [], { LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT: '2' });
    let log = '';
    server.child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const stalled = await slowReader(server.url, null);
    const exited = exitOf(server);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const { code, at } = await exited;
    // Only now does the client read on: it finds its response cut short.
    stalled.hurry();
    const result = await stalled.done;
    expect(result.complete).toBe(false);
    expect(code).toBe(0);
    expect(at - signalledAt).toBeGreaterThanOrEqual(1_900);
    expect(at - signalledAt).toBeLessThan(8_000);
    expect(log).toMatch(/"cut":1/);
    const wal = join(cli.dir, 'onair.db-wal');
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  });
});
