import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** What a drain did: how many connections were still open when the time ran out. */
export interface DrainResult {
  cut: number;
}

/** Graceful stop of an HTTP server's connections. */
export interface ConnectionDrain {
  /**
   * Stops accepting connections, closes idle ones, and lets every response in flight reach its
   * client (each connection closes once its responses are out). Connections still open after
   * `graceMs` are cut. Resolves when no connection is left.
   */
  drain(graceMs: number): Promise<DrainResult>;
  /** Cuts every connection now (a second signal during a drain). */
  cutAll(): void;
}

/**
 * Tracks the connections of `server` so a shutdown can wait for them. Node's own
 * `server.close()` is not enough: it destroys every connection without a request in progress,
 * and a response counts as done once `end()` has been called, even while most of a large body
 * still waits in Node's buffers for a slow client. Here a connection counts as busy until its
 * response's `close` event, which follows `finish`, itself only when the last byte has been
 * handed to the operating system.
 */
export function trackConnections(server: Server): ConnectionDrain {
  /** Responses of each open connection not yet handed to the operating system. */
  const open = new Map<Socket, Set<ServerResponse>>();
  let draining = false;
  let cut = 0;
  let settle: (() => void) | null = null;

  const closeWhenIdle = (socket: Socket) => {
    // end() sends what is buffered, then FIN: the client reads to the end of every response.
    if (draining && open.get(socket)?.size === 0) socket.end();
  };

  server.on('connection', (socket: Socket) => {
    open.set(socket, new Set());
    socket.once('close', () => {
      open.delete(socket);
      if (draining && open.size === 0) settle?.();
    });
  });

  // Prepended: runs before the app's handler, so the header is set before anything is sent.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const responses = open.get(socket);
    if (responses === undefined) return;
    responses.add(response);
    if (draining) response.setHeader('Connection', 'close');
    // 'close' follows 'finish' (a tick later) and also comes when the connection is lost first:
    // one listener a response rather than one for each, and `on`, not `once`, as a response
    // closes once (removing the listener again was a call for every request).
    response.on('close', () => {
      if (responses.delete(response)) closeWhenIdle(socket);
    });
  });

  function cutAll(): void {
    cut += open.size;
    for (const socket of open.keys()) socket.destroy();
  }

  return {
    drain(graceMs) {
      draining = true;
      // Stop listening without http.Server#close, whose closeIdleConnections() would destroy
      // the connections whose ended responses are still being flushed.
      NetServer.prototype.close.call(server);
      for (const [socket, responses] of open) {
        // Responses not started yet tell their client the connection ends with them.
        for (const response of responses) {
          if (!response.headersSent) response.setHeader('Connection', 'close');
        }
        closeWhenIdle(socket);
      }
      return new Promise<DrainResult>((resolve) => {
        if (open.size === 0) {
          resolve({ cut });
          return;
        }
        const finish = () => {
          clearTimeout(timer);
          settle = null;
          resolve({ cut });
        };
        const timer = setTimeout(() => {
          cutAll();
          finish();
        }, graceMs);
        settle = finish;
      });
    },
    cutAll,
  };
}
