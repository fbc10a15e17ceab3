// The reference point: plain node:http sending prepared bytes from memory, no checks at all.
// Reads {path: base64 body} pairs as JSON on stdin, listens on the port given, prints "ready".
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const bodies = new Map(
    Object.entries(JSON.parse(input)).map(([path, b64]) => [path, Buffer.from(b64, 'base64')]),
  );
  createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
    });
    res.end(body);
  }).listen(port, '127.0.0.1', () => console.log('ready'));
});
