import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { it } from 'vitest';
import { TEST_ENGINE, freshPostgresDatabase, type EngineName } from './engines.js';

/** The operator CLI as a customer's machine runs it: the real executable, in a child process. */
export const ONAIR_BIN = resolve(import.meta.dirname, '../../bin/onair');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A throw-away working directory with its own database. */
export interface CliSandbox {
  dir: string;
  env: NodeJS.ProcessEnv;
  run(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  json<T = unknown>(args: string[]): Promise<T>;
  dispose(): void;
}

export function createCliSandbox(): CliSandbox {
  const dir = mkdtempSync(join(tmpdir(), 'onair-cli-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    DATABASE_URL: join(dir, 'onair.db'),
    LOG_LEVEL: 'warn',
    // libfaketime's, when the suite runs at another hour (docs/testing.md): the CLI then keeps
    // the tests' clock. Unset otherwise (spawn leaves undefined values out).
    LD_PRELOAD: process.env.LD_PRELOAD,
    FAKETIME: process.env.FAKETIME,
  };
  const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    new Promise<CliResult>((resolvePromise, reject) => {
      // Run from an unrelated directory: the CLI must not depend on the working directory.
      const child = spawn(ONAIR_BIN, args, { cwd: dir, env: { ...env, ...extraEnv } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    });
  return {
    dir,
    env,
    run,
    async json<T>(args: string[]) {
      const result = await run([...args, '--json']);
      if (result.code !== 0) throw new Error(`onair ${args.join(' ')} failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `it` for a case that opens no database (help, usage): it runs once, in the sqlite project. */
export const itWithoutDatabase = it.runIf(TEST_ENGINE === 'sqlite');

/** A sandbox over a database on `engine`; dispose also drops a PostgreSQL database. */
export interface EngineCliSandbox extends Omit<CliSandbox, 'dispose'> {
  engine: EngineName;
  dispose(): Promise<void>;
}

/**
 * A sandbox whose DATABASE_URL is on `engine` (the vitest project's by default): its SQLite
 * file, or a fresh PostgreSQL database.
 */
export async function openCliSandbox(engine: EngineName = TEST_ENGINE): Promise<EngineCliSandbox> {
  const sandbox = createCliSandbox();
  if (engine === 'sqlite') return { ...sandbox, engine, dispose: async () => sandbox.dispose() };
  try {
    const database = await freshPostgresDatabase();
    sandbox.env.DATABASE_URL = database.url;
    // The outbox sits beside a SQLite file by default, but in the project's data/ folder for
    // PostgreSQL: keep it in the sandbox.
    sandbox.env.OUTBOX_DIR = join(sandbox.dir, 'outbox');
    return {
      ...sandbox,
      engine,
      async dispose() {
        sandbox.dispose();
        await database.drop();
      },
    };
  } catch (error) {
    sandbox.dispose();
    throw error;
  }
}

/** A running `onair serve` child process and the URL it printed. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  banner: string;
  /** Everything it has written to standard output so far, the banner included. */
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts `onair serve` on a free port and waits for its banner. */
export function startServe(
  sandbox: Pick<CliSandbox, 'dir' | 'env'>,
  args: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
) {
  return new Promise<ServeProcess>((resolvePromise, reject) => {
    const child = spawn(ONAIR_BIN, ['serve', ...args], {
      cwd: sandbox.dir,
      env: { ...sandbox.env, PORT: '0', ...extraEnv },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`serve did not start: ${stdout} ${stderr}`)),
      20_000,
    );
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /serving (http:\/\/[^\s]+)/.exec(stdout);
      if (match?.[1] && stdout.includes('\n', match.index)) {
        clearTimeout(timer);
        // Give the banner's remaining lines a moment to arrive.
        setTimeout(() => {
          resolvePromise({
            child,
            url: match[1] as string,
            banner: stdout,
            output: () => stdout,
            stop: () =>
              new Promise((done) => {
                child.removeAllListeners('exit');
                child.on('exit', (code) => done(code));
                child.kill('SIGTERM');
              }),
          });
        }, 100);
      }
    });
  });
}
