#!/usr/bin/env node
// What a ratio to plain node:http means on this machine: `node bench/per-request-budget.mjs`.
// bench/http.mjs compares Onair with a plain node:http server sending the same bytes; this
// loads that same plain server (bench/plain-server.mjs) with a busy wait of a fixed number of
// microseconds before each answer, in the same way (wrk, one thread, 32 connections), and
// prints each one's req/s, its ratio to the server without the wait, and its CPU per request.
// The ratio falls faster than the work added: a server slower to answer leaves the load
// generator idle between answers, and each answer then wakes it (on a virtual machine, an
// interrupt between virtual CPUs), so CPU per request grows by more than the wait
// (bench/RESULTS.md). The ratio a route can reach with its checks is read off this table.
//
// Options: --spins LIST (microseconds, default 0,2,5,10,20,40) --body-bytes N (411: the
//          bench catalogue's /api/v1/countries) --duration S (5) --connections N (32)
//          --rounds N (2; the servers in turn each round, the median reported)
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  arg,
  ensureWrk,
  freePort,
  removeWrkFiles,
  startProcess,
  wrkLoad,
} from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const options = {
  spins: String(arg('--spins', '0,2,5,10,20,40')).split(',').map(Number),
  bodyBytes: Number(arg('--body-bytes', 411)),
  duration: Number(arg('--duration', 5)),
  connections: Number(arg('--connections', 32)),
  rounds: Number(arg('--rounds', 2)),
};
if (!options.spins.includes(0)) options.spins.unshift(0);

ensureWrk();
const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, options.bodyBytes - 10)) }));
const input = JSON.stringify({ '/': { body: body.toString('base64') } });
const servers = [];
for (const spin of options.spins) {
  const port = await freePort();
  const child = await startProcess(
    process.execPath,
    [join(ROOT, 'bench/plain-server.mjs'), String(port), String(spin)],
    {},
    /ready/,
    input,
  );
  servers.push({ spin, child, url: `http://127.0.0.1:${port}/`, runs: [] });
}
const out = join(ROOT, 'bench/out');
try {
  for (let round = 0; round < options.rounds; round++) {
    for (const server of servers) {
      const load = (duration) =>
        wrkLoad(server.url, {
          keys: ['-'],
          pid: server.child.pid,
          duration,
          connections: options.connections,
          out,
        });
      await load(1);
      server.runs.push(await load(options.duration));
    }
  }
} finally {
  for (const { child } of servers) child.kill('SIGTERM');
  removeWrkFiles();
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(servers[0].runs.map((r) => r.rps));
console.log(
  `Body ${body.length} bytes; wrk, 1 thread, ${options.connections} connections, ${options.duration} s, ` +
    `median of ${options.rounds}. Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GB; Node ${process.version}.`,
);
console.log('');
console.log(
  '| work added (µs) | req/s | ratio | p50 / p99 ms | CPU µs/request | CPU beyond the work |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
for (const { spin, runs } of servers) {
  const rps = median(runs.map((r) => r.rps));
  const cpu = median(runs.map((r) => r.cpuUs));
  const p50 = median(runs.map((r) => r.p50));
  const p99 = median(runs.map((r) => r.p99));
  console.log(
    `| ${spin} | ${Math.round(rps)} | ${Math.round((100 * rps) / base)} % | ${p50} / ${p99} | ` +
      `${cpu.toFixed(0)} | ${(cpu - spin).toFixed(0)} |`,
  );
}
