// A process that logs through the server's logger (JSON to standard output, as `onair serve`):
// src/logger.test.ts checks that no held line is lost when it exits (`exit`: process.exit in the
// turn that logged; `end`: nothing left to do), and that one that goes on running (`stay`: says
// "logged" on stderr, then lives 5 s more) writes its lines within the hold.
// Usage: node --import tsx test/helpers/log-then-exit.ts LINES exit|end|stay
import { createLogger } from '../../src/logger.js';

const lines = Number(process.argv[2]);
const log = createLogger('info');
for (let i = 0; i < lines; i++) log.info({ i }, 'line');
if (process.argv[3] === 'exit') process.exit(0);
if (process.argv[3] === 'stay') {
  process.stderr.write('logged\n');
  setTimeout(() => undefined, 5000);
}
