// The reference point: plain node:http sending prepared bytes from memory, no checks at all.
// Reads {path: {body: base64, encoding}} as JSON on stdin, listens on the port given, prints
// "ready". A body with an encoding (already compressed) is sent with its Content-Encoding.
// Usage: node bench/plain-server.mjs PORT [SPIN_US]; with SPIN_US, each answer is preceded by a
// busy wait of that many microseconds (bench/per-request-budget.mjs: what work per request
// costs in the ratio to plain node:http).
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const port = Number(process.argv[2]);
const spinMs = Number(process.argv[3] ?? 0) / 1000;
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const bodies = new Map(
    Object.entries(JSON.parse(input)).map(([path, { body, encoding }]) => [
      path,
      { body: Buffer.from(body, 'base64'), encoding },
    ]),
  );
  createServer((req, res) => {
    if (spinMs > 0) {
      const until = performance.now() + spinMs;
      while (performance.now() < until);
    }
    const found = bodies.get(req.url ?? '');
    if (found === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': found.body.length,
      ...(found.encoding ? { 'content-encoding': found.encoding } : {}),
    });
    res.end(found.body);
  }).listen(port, '127.0.0.1', () => console.log('ready'));
});
