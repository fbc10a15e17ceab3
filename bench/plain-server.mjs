// The reference point: plain node:http sending prepared bytes from memory, no checks at all.
// Reads {path: {body: base64, encoding}} as JSON on stdin, listens on the port given, prints
// "ready". A body with an encoding (already compressed) is sent with its Content-Encoding.
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
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
