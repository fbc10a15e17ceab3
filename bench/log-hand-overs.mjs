#!/usr/bin/env node
// What handing the access lines to the log's writer costs, per line, as `onair serve` writes
// them: `node bench/log-hand-overs.mjs` (after `npm run build`). Each run is a process of its
// own that writes access lines (request-log.ts) to its standard output, a file under bench/out
// (`--to pipe`: a pipe this process drains), K lines a turn of the event loop for 50,000 turns,
// and reports the CPU time of the whole process (every thread) per line. Cases:
//   none      the lines made and dropped: the floor;
//   per-turn  each turn's lines handed to pino's asynchronous destination at the turn's end
//             (an asynchronous write per turn; src/logger.ts before heldLines);
//   held      as serve writes them (heldLines: held up to 20 ms or 64 Ki characters).
// Options: --lines-per-turn 1,4,16 --turns 50000 --rounds 5 (the cases in turn, each round;
// medians printed) --to file|pipe.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setImmediate, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { pino } from 'pino';
import { arg } from './bench-support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench/out');

if (process.argv[2] === '--child') {
  const [, , , name, perTurn, turns] = process.argv;
  const { heldLines } = await import(join(ROOT, 'dist/logger.js'));
  const { createRequestLog } = await import(join(ROOT, 'dist/http/request-log.js'));
  const destination = pino.destination({ dest: 1, sync: false });
  const streams = {
    none: { write() {} },
    'per-turn': (() => {
      let held = [];
      const handOver = () => {
        destination.write(held.join(''));
        held = [];
      };
      return {
        write(line) {
          if (held.push(line) === 1) setImmediate(handOver);
        },
      };
    })(),
    held: heldLines(destination, 1),
  };
  const logRequest = createRequestLog(pino({ level: 'info' }, streams[name]), () => '127.0.0.1');
  const req = Object.assign(new IncomingMessage(new Socket()), {
    method: 'GET',
    url: '/api/v1/countries',
  });
  const lines = Number(perTurn) * Number(turns);
  const before = process.cpuUsage();
  let i = 0;
  for (let turn = 0; turn < Number(turns); turn++) {
    for (let k = 0; k < Number(perTurn); k++) {
      logRequest({
        reqId: `req-${(i++).toString(36)}`,
        req,
        route: '/api/v1/countries',
        statusCode: 200,
        responseTime: 0.1219,
        accountId: '0b6f8a52-3c1d-4e5f-9a7b-2c3d4e5f6a7b',
      });
    }
    await new Promise((done) => setImmediate(done));
  }
  // Let the last writes finish inside the measure.
  await new Promise((done) => setTimeout(done, 50));
  await new Promise((done) =>
    destination.writableNeedDrain ? destination.once('drain', done) : done(),
  );
  const used = process.cpuUsage(before);
  process.stderr.write(`${JSON.stringify({ usPerLine: (used.user + used.system) / lines })}\n`);
  process.exit(0);
}

const perTurnList = String(arg('--lines-per-turn', '1,4,16')).split(',').map(Number);
const turns = Number(arg('--turns', 50_000));
const rounds = Number(arg('--rounds', 5));
const to = String(arg('--to', 'file'));
const names = ['none', 'per-turn', 'held'];
mkdirSync(OUT, { recursive: true });

/** One run of a case: its process's CPU µs per line. */
function run(name, perTurn) {
  return new Promise((done, fail) => {
    const file = to === 'file' ? openSync(join(OUT, 'log-hand-overs.log'), 'w') : 'pipe';
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', name, String(perTurn), String(turns)],
      { stdio: ['ignore', file, 'pipe'] },
    );
    if (file !== 'pipe') closeSync(file);
    else child.stdout.resume();
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`${name}: exit ${code}: ${err}`));
      done(JSON.parse(err.trim().split('\n').pop()).usPerLine);
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ` +
    `${turns} turns, ${rounds} rounds, lines to a ${to}.`,
);
console.log('\n| lines a turn | ' + names.join(' µs/line | ') + ' µs/line |');
console.log('|' + ' ---: |'.repeat(names.length + 1));
for (const perTurn of perTurnList) {
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of names) results[name].push(await run(name, perTurn));
  }
  console.log(
    `| ${perTurn} | ${names.map((name) => median(results[name]).toFixed(2)).join(' | ')} |`,
  );
}
