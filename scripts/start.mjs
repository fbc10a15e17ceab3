// `npm start`: `bin/onair` with the arguments given, after a build only when the sources
// changed since the last one (a built checkout starts at once, without compiler output).
import { fileURLToPath } from 'node:url';
import { build, buildIsCurrent } from './build-steps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!buildIsCurrent(root)) {
  process.stderr.write('onair: building first: the sources changed since the last build\n');
  if (build(root) !== 0) {
    process.stderr.write('onair: the build failed (above); nothing started\n');
    process.exit(1);
  }
}
const { runCli } = await import(new URL('../dist/cli/main.js', import.meta.url).href);
process.exitCode = await runCli(process.argv.slice(2));
