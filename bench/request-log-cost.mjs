#!/usr/bin/env node
// What the access line costs per request, in one process: `node bench/request-log-cost.mjs`
// (after `npm run build`). Writes 200,000 request lines (`--lines N` to change) into a
// destination that keeps only their length, so the figure is the formatting alone (a write to
// a pipe or file adds its system call, shared by many lines when written asynchronously as
// `serve` does): pino's own serialisation of the request object, as Onair logged before, and
// the hand-written line of src/http/request-log.ts. Prints µs of CPU per line, median of 5 runs.
import { EventEmitter } from 'node:events';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { createRequestLog } from '../dist/http/request-log.js';
import { createLogger } from '../dist/logger.js';

const at = process.argv.indexOf('--lines');
const lines = at < 0 ? 200_000 : Number(process.argv[at + 1]);

let written = 0;
// pino writes a string per line to any object with write(); the logger listens for its errors.
const sink = () =>
  Object.assign(new EventEmitter(), {
    write(line) {
      written += line.length;
    },
  });
const req = Object.assign(new IncomingMessage(new Socket()), {
  method: 'GET',
  url: '/api/v1/countries/GB/channels',
});
const account = '0b6f8a52-3c1d-4e5f-9a7b-2c3d4e5f6a7b';

const cases = {
  'pino serialises the request object': () => {
    const log = createLogger('info', sink());
    return (i) =>
      log.info(
        {
          reqId: `req-${i}`,
          req: { method: req.method, url: req.url, ip: '127.0.0.1' },
          res: { statusCode: 200 },
          responseTime: 0.4213,
        },
        'request completed',
      );
  },
  'pino serialises the same fields as the access line': () => {
    const log = createLogger('info', sink());
    return (i) =>
      log.info(
        {
          reqId: `req-${i}`,
          req: { method: req.method, url: req.url, ip: '127.0.0.1', route: '/api/v1/x/:y' },
          res: { statusCode: 200, bytes: 1234 },
          responseTime: 0.4213,
          accountId: account,
        },
        'request completed',
      );
  },
  'the access line by hand (request-log.ts)': () => {
    const logRequest = createRequestLog(createLogger('info', sink()), () => '127.0.0.1');
    return (i) =>
      logRequest({
        reqId: `req-${i}`,
        req,
        route: '/api/v1/countries/:countryCode/channels',
        statusCode: 200,
        responseTime: 0.4213,
        accountId: account,
      });
  },
};

for (const [name, make] of Object.entries(cases)) {
  const results = [];
  for (let run = 0; run < 5; run += 1) {
    const logLine = make();
    const before = process.cpuUsage();
    for (let i = 0; i < lines; i += 1) logLine(i);
    const used = process.cpuUsage(before);
    results.push((used.user + used.system) / lines);
  }
  results.sort((a, b) => a - b);
  console.log(`${name}: ${results[2].toFixed(2)} µs of CPU per line`);
}
console.log(`(${written} bytes formatted)`);
