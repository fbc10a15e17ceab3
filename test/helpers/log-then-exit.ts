// A process that logs through the server's logger (JSON to standard output, as `onair serve`)
// and exits in the same turn: src/logger.test.ts checks no line held for the turn's end is lost.
// Usage: node --import tsx test/helpers/log-then-exit.ts LINES exit|end
import { createLogger } from '../../src/logger.js';

const lines = Number(process.argv[2]);
const log = createLogger('info');
for (let i = 0; i < lines; i++) log.info({ i }, 'line');
if (process.argv[3] === 'exit') process.exit(0);
