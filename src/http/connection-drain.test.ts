import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { trackConnections, type ConnectionDrain } from './connection-drain.js';

let server: Server;
let drain: ConnectionDrain;
let port: number;
const BIG = Buffer.alloc(16 * 1024 * 1024, 0x61);

async function start(): Promise<void> {
  server = createServer((request, response) => {
    if (request.url === '/big') {
      response.writeHead(200, { 'content-length': BIG.length });
      response.end(BIG);
    } else if (request.url === '/slow') {
      setTimeout(() => response.end('late'), 300);
    } else {
      response.end('ok');
    }
  });
  drain = trackConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

/** A raw client: sends `request`, collects every byte until the server closes. */
function client(request: string, readDelayMs = 0) {
  const socket: Socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write(request));
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (readDelayMs > 0) {
      socket.pause();
      setTimeout(() => socket.resume(), readDelayMs);
    }
  });
  const closed = new Promise<string>((resolve) =>
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1'))),
  );
  const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  return { socket, closed, answered };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

describe('trackConnections', () => {
  it('closes idle connections at once and resolves when none is left', async () => {
    await start();
    const idle = client(get('/'));
    await idle.answered;
    const started = Date.now();
    expect(await drain.drain(5_000)).toEqual({ cut: 0 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await idle.closed).toMatch(/^HTTP\/1\.1 200/);
  });

  it('delivers an ended response still buffered for a slow reader, whole', async () => {
    await start();
    const reader = client(get('/big'), 2);
    await reader.answered;
    expect(await drain.drain(20_000)).toEqual({ cut: 0 });
    const received = await reader.closed;
    expect(received.length - received.indexOf('\r\n\r\n') - 4).toBe(BIG.length);
  });

  it('refuses new connections, and answers a request still being handled with Connection: close', async () => {
    await start();
    const slow = client(get('/slow'));
    const kept = client(get('/'));
    await kept.answered;
    const draining = drain.drain(5_000);
    // The server stopped listening: a new connection is refused.
    const refused = await new Promise<boolean>((resolve) => {
      const probe = connect(port, '127.0.0.1');
      probe.on('error', () => resolve(true));
      probe.on('connect', () => {
        probe.destroy();
        resolve(false);
      });
    });
    expect(refused).toBe(true);
    expect(await draining).toEqual({ cut: 0 });
    expect(await slow.closed).toMatch(/Connection: close[\s\S]*late$/);
  });

  it('cuts what is still open when the time runs out, or at once on cutAll', async () => {
    await start();
    const stalled = client(get('/big'));
    stalled.socket.pause();
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    expect(await drain.drain(300)).toEqual({ cut: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);

    await start();
    const another = client(get('/big'));
    another.socket.pause();
    await new Promise((r) => setTimeout(r, 100));
    const draining = drain.drain(60_000);
    drain.cutAll();
    expect(await draining).toEqual({ cut: 1 });
  });
});
