import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the guide server received. */
export interface SeenRequest {
  path: string;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  at: number;
}

export type GuideHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A local http server that plays a guide publisher; each path answers as the test says. */
export interface GuideServer {
  base: string;
  requests: SeenRequest[];
  /** Requests for one path. */
  seen(path: string): SeenRequest[];
  on(path: string, handler: GuideHandler): void;
  close(): Promise<void>;
}

export async function startGuideServer(): Promise<GuideServer> {
  const handlers = new Map<string, GuideHandler>();
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({
      path,
      ifNoneMatch: req.headers['if-none-match'] ?? null,
      ifModifiedSince: req.headers['if-modified-since'] ?? null,
      at: Date.now(),
    });
    const handler = handlers.get(path);
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such guide');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    seen: (path) => requests.filter((r) => r.path === path),
    on: (path, handler) => handlers.set(path, handler),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A publisher that honours conditional GET: 304 when If-None-Match names the current ETag, or
 * If-Modified-Since is not before Last-Modified.
 */
export function conditionalGuide(
  current: () => { body: Buffer; etag: string; lastModified: string },
): GuideHandler {
  return (req, res) => {
    const { body, etag, lastModified } = current();
    const since = req.headers['if-modified-since'];
    if (
      req.headers['if-none-match'] === etag ||
      (req.headers['if-none-match'] === undefined &&
        since !== undefined &&
        Date.parse(since) >= Date.parse(lastModified))
    ) {
      res.writeHead(304, { etag, 'last-modified': lastModified });
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/xml',
      'content-length': body.length,
      etag,
      'last-modified': lastModified,
    });
    res.end(body);
  };
}
