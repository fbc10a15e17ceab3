// The build and what it was built from, shared by `npm run build` (scripts/build.mjs) and
// `npm start` (scripts/start.mjs), which rebuilds only when the sources changed.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

/** Folders whose files (tests aside) are compiled. */
const SOURCE_DIRS = ['src', 'clients/typescript/src'];

/** Files that change what a build makes: compiler settings, and the dependencies' types. */
const SETTINGS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'clients/typescript/package.json',
  'clients/typescript/tsconfig.json',
];

/** What a build leaves, checked too: a stamp alone does not prove the output is there. */
const OUTPUTS = ['dist/cli/main.js', 'clients/typescript/dist/index.js'];

/** Written after a successful build: the digest of the inputs it was built from. */
export const STAMP = 'dist/.build-inputs';

/** The compiled inputs under `root`, as sorted '/'-separated paths relative to it. */
export function buildInputs(root) {
  const files = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.test.ts'))
        files.push(relative(root, path).split(sep).join('/'));
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(root, dir));
  return [...files, ...SETTINGS].sort();
}

/**
 * A digest of every input's path and bytes. Contents, not times: a checkout copied without its
 * times, a `touch`, or a clock set back neither hides a change nor causes a rebuild.
 */
export function inputsDigest(root) {
  const hash = createHash('sha256');
  for (const file of buildInputs(root)) {
    const path = join(root, file);
    hash.update(`${file}\0`);
    hash.update(existsSync(path) ? readFileSync(path) : '\0missing');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether the last build under `root` finished and was made from the sources as they are. */
export function buildIsCurrent(root) {
  if (!OUTPUTS.every((file) => existsSync(join(root, file)))) return false;
  const stamp = join(root, STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === inputsDigest(root);
}

/**
 * Compiles the server and the TypeScript client (its `build` script), and stamps the result
 * with the digest taken before compiling, so an edit made meanwhile still rebuilds next time.
 * Returns the exit code: 0 when both compiled without errors.
 */
export function build(root) {
  const digest = inputsDigest(root);
  rmSync(join(root, STAMP), { force: true });
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  for (const project of ['tsconfig.build.json', 'clients/typescript/tsconfig.json']) {
    const run = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) return run.status ?? 1;
  }
  writeFileSync(join(root, STAMP), `${digest}\n`);
  return 0;
}
