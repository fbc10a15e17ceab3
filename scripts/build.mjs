// `npm run build`: always compiles (see build-steps.mjs). With `--when-changed` (`npm test`'s
// pretest, after `npm install` built the same sources) only when the sources changed since the
// last build: the check is a digest of their bytes, as `npm start` makes it.
import { fileURLToPath } from 'node:url';
import { build, buildIsCurrent } from './build-steps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.argv.includes('--when-changed') && buildIsCurrent(root)) {
  process.stderr.write('onair: the build is current (the sources have not changed since)\n');
} else {
  process.exitCode = build(root);
}
