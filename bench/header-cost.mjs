#!/usr/bin/env node
// What the headers of an Onair answer cost by themselves: `node bench/header-cost.mjs`.
// Three servers send the same 0.4 KB JSON body (the size of /api/v1/countries), loaded in turn
// by autocannon (32 connections, 5 s each; --duration S to change): plain node:http with the two
// headers of bench/http.mjs's reference server, plain node:http with the twelve headers an
// Onair list answer carries (same names, values of the same length), and Fastify sending those
// twelve from a route with no hooks. Prints req/s and each as a ratio of the first.
import { createServer } from 'node:http';
import autocannon from 'autocannon';
import Fastify from 'fastify';

const at = process.argv.indexOf('--duration');
const duration = at < 0 ? 5 : Number(process.argv[at + 1]);
const body = Buffer.from(
  JSON.stringify({
    countries: Array.from({ length: 10 }, (_, i) => ({ country: `C${i}`, channelCount: 200 })),
  }),
);
const onairHeaders = {
  'content-type': 'application/json; charset=utf-8',
  etag: 'W/"123456789012:countries"',
  'cache-control': 'private, no-cache',
  vary: 'Accept-Encoding',
  'ratelimit-policy': '10000000;w=1',
  ratelimit: 'limit=10000000, remaining=9999999, reset=1',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-length': String(body.length),
};

const servers = {
  'node:http, 2 headers': () =>
    createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    }),
  "node:http, an Onair answer's 12 headers": () =>
    createServer((_req, res) => {
      res.writeHead(200, onairHeaders);
      res.end(body);
    }),
  "Fastify, an Onair answer's 12 headers": async () => {
    const app = Fastify();
    app.get('/', (_request, reply) => {
      reply.headers(onairHeaders).send(body);
    });
    await app.ready();
    return app.server;
  },
};

const rows = [];
for (const [name, make] of Object.entries(servers)) {
  const server = await make();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const result = await autocannon({ url, connections: 32, duration });
  rows.push([name, Math.round(result.requests.average)]);
  await new Promise((resolve) => server.close(resolve));
}
const base = rows[0][1];
console.log('| server | req/s | of the first |\n| --- | ---: | ---: |');
for (const [name, rps] of rows) {
  console.log(`| ${name} | ${rps} | ${Math.round((100 * rps) / base)} % |`);
}
process.exit(0);
