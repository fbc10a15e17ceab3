import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start` (scripts/start.mjs) rebuilds only when the sources changed. Tried on a tiny
 * project laid out like Onair (its own src/cli/main.ts and TypeScript client) that uses the
 * real scripts and the real compiler, so each build takes a second, not Onair's half minute.
 */

const ROOT = resolve(import.meta.dirname, '../..');
let project: string;

const files: Record<string, string> = {
  'package.json': '{ "name": "tiny", "type": "module" }\n',
  'package-lock.json': '{}\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      types: [],
    },
  }),
  'tsconfig.build.json': JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: { rootDir: 'src', outDir: 'dist' },
    include: ['src'],
    exclude: ['src/**/*.test.ts'],
  }),
  'src/cli/main.ts': mainSaying('first'),
  'src/cli/main.test.ts': '// a test: never part of a build\n',
  'clients/typescript/package.json': '{ "name": "tiny-client", "type": "module" }\n',
  'clients/typescript/tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      types: [],
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  }),
  'clients/typescript/src/index.ts': 'export const client = 1;\n',
};

/** A runCli that prints what it was given and a word, so a test sees which build runs. */
function mainSaying(word: string): string {
  return `export async function runCli(argv: readonly string[]): Promise<number> {
  process.stdout.write(\`${word}: \${argv.join(' ')}\\n\`);
  return 0;
}
declare const process: { stdout: { write(text: string): void } };
`;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
}

/** Runs `node scripts/<script>` in the tiny project. */
function run(script: string, args: string[] = []) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, [join(project, 'scripts', script), ...args], {
      cwd: project,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const BUILDING = 'onair: building first: the sources changed since the last build\n';

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'onair-start-'));
  for (const [path, text] of Object.entries(files)) write(path, text);
  cpSync(join(ROOT, 'scripts'), join(project, 'scripts'), { recursive: true });
  // The real compiler, from Onair's own dependencies.
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** The build steps' module of the tiny project, for its decision alone. */
interface BuildSteps {
  STAMP: string;
  buildInputs(root: string): string[];
  inputsDigest(root: string): string;
  buildIsCurrent(root: string): boolean;
}
const buildSteps = async (root: string) =>
  (await import(pathToFileURL(join(root, 'scripts/build-steps.mjs')).href)) as BuildSteps;

describe('npm start on a built checkout', () => {
  it('does not build after `npm run build` (as `npm install` runs it)', async () => {
    const build = await run('build.mjs');
    expect(build).toEqual({ code: 0, stdout: '', stderr: '' });
    const start = await run('start.mjs', ['serve', '--demo']);
    expect(start).toEqual({ code: 0, stdout: 'first: serve --demo\n', stderr: '' });
  });

  it('nor for new file times or a changed test', async () => {
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(join(project, 'src/cli/main.ts'), future, future);
    write('src/cli/main.test.ts', '// a changed test\n');
    expect(await run('start.mjs', ['x'])).toEqual({ code: 0, stdout: 'first: x\n', stderr: '' });
  });

  it('builds first after a source changed, once', async () => {
    write('src/cli/main.ts', mainSaying('second'));
    expect(await run('start.mjs', ['x'])).toEqual({
      code: 0,
      stdout: 'second: x\n',
      stderr: BUILDING,
    });
    expect(await run('start.mjs', ['x'])).toEqual({ code: 0, stdout: 'second: x\n', stderr: '' });
  });

  it('sees an added or removed file, the client, a setting, and output gone', async () => {
    const steps = await buildSteps(project);
    // What a build would stamp, without compiling: the decision alone is under test here.
    const stamp = () => writeFileSync(join(project, steps.STAMP), steps.inputsDigest(project));
    expect(steps.buildIsCurrent(project)).toBe(true);
    for (const change of [
      () => write('src/extra.ts', 'export const extra = 1;\n'),
      () => rmSync(join(project, 'src/extra.ts')),
      () => write('clients/typescript/src/index.ts', 'export const client = 2;\n'),
      () => write('package-lock.json', '{ "lockfileVersion": 3 }\n'),
      () => write('tsconfig.build.json', `${files['tsconfig.build.json']}\n`),
    ]) {
      change();
      expect(steps.buildIsCurrent(project), change.toString()).toBe(false);
      stamp();
      expect(steps.buildIsCurrent(project)).toBe(true);
    }
    rmSync(join(project, 'clients/typescript/dist/index.js'));
    expect(steps.buildIsCurrent(project)).toBe(false);
  });

  it('starts nothing when the build fails, and builds again next time', async () => {
    write('src/cli/main.ts', 'export const broken: number = "text";\n');
    const failed = await run('start.mjs', ['x']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/error TS2322/);
    expect(failed.stderr).toBe(`${BUILDING}onair: the build failed (above); nothing started\n`);
    write('src/cli/main.ts', mainSaying('third'));
    expect(await run('start.mjs', ['x'])).toEqual({
      code: 0,
      stdout: 'third: x\n',
      stderr: BUILDING,
    });
  });
});

describe("npm test's build (build.mjs --when-changed)", () => {
  const CURRENT = 'onair: the build is current (the sources have not changed since)\n';

  it('compiles nothing when the sources are as last built, and compiles after a change', async () => {
    expect(await run('build.mjs')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await run('build.mjs', ['--when-changed'])).toEqual({
      code: 0,
      stdout: '',
      stderr: CURRENT,
    });
    write('src/cli/main.ts', mainSaying('fourth'));
    expect(await run('build.mjs', ['--when-changed'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(project, 'dist/cli/main.js'), 'utf8')).toContain('fourth');
    expect(await run('build.mjs', ['--when-changed'])).toEqual({
      code: 0,
      stdout: '',
      stderr: CURRENT,
    });
  });

  it('fails as `npm run build` does when the changed sources do not compile', async () => {
    write('src/cli/main.ts', 'export const broken: number = "text";\n');
    const failed = await run('build.mjs', ['--when-changed']);
    // tsc's own status, as `npm run build` exits with it.
    expect(failed.code).toBe(2);
    expect(failed.stdout).toMatch(/error TS2322/);
    write('src/cli/main.ts', mainSaying('fifth'));
    expect(await run('build.mjs', ['--when-changed'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe("Onair's own build inputs", () => {
  it('are its sources without tests, the client and the settings', async () => {
    const inputs = (await buildSteps(ROOT)).buildInputs(ROOT);
    expect(inputs).toEqual(
      expect.arrayContaining([
        'src/cli/main.ts',
        'src/server.ts',
        'clients/typescript/src/index.ts',
        'tsconfig.build.json',
        'package-lock.json',
      ]),
    );
    expect(inputs.filter((file) => file.endsWith('.test.ts'))).toEqual([]);
    // `npm start` runs what `npm run build` makes; `npm test` builds the same way first.
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts).toMatchObject({
      build: 'node scripts/build.mjs',
      start: 'node scripts/start.mjs serve --demo',
      pretest: 'node scripts/build.mjs --when-changed',
      test: 'vitest run',
    });
  });
});
