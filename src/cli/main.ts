import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, PROJECT_ROOT } from '../config.js';
import { systemClock } from '../open-store.js';
import { describeStorageWriteFailure, SchemaVersionError } from '../storage/errors.js';
import { CliError, ReportedFailure, type CliContext } from './cli-context.js';
import { accountsCommand } from './commands/accounts-command.js';
import { channelsCommand } from './commands/channels-command.js';
import { feedsCommand } from './commands/feeds-command.js';
import { ingestCommand } from './commands/ingest-command.js';
import { keysCommand } from './commands/keys-command.js';
import { migrateCommand } from './commands/migrate-command.js';
import { playgroundCommand } from './commands/playground-command.js';
import { serveCommand } from './commands/serve-command.js';
import { sourcesCommand } from './commands/sources-command.js';
import { webhooksCommand } from './commands/webhooks-command.js';

/** The version in package.json, the one place it is written. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}

/** How an operator calls a command: `bin/onair accounts create`. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return ['bin/onair', ...names].join(' ');
}

/**
 * A usage error as one line, like every other failure: `onair: error: <commander's message>
 * (see bin/onair <command> --help)`. Commander's own text starts `error: ` and may hold a
 * second line (a "Did you mean" suggestion).
 */
export function usageErrorLine(text: string, command: Command): string {
  const message = text
    .replace(/^error:\s*/i, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return `onair: error: ${message} (see ${commandPath(command)} --help)\n`;
}

/** Builds the `onair` command tree. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('onair')
    .description('Onair: XMLTV guide data in, API-key protected schedule API out')
    .version(packageVersion(), '-V, --version', 'print the Onair version');
  for (const command of [
    serveCommand(ctx),
    ingestCommand(ctx),
    sourcesCommand(ctx),
    channelsCommand(ctx),
    accountsCommand(ctx),
    keysCommand(ctx),
    feedsCommand(ctx),
    webhooksCommand(ctx),
    migrateCommand(ctx),
    playgroundCommand(ctx),
  ]) {
    program.addCommand(command);
  }
  // Every command, sub-commands included, writes through ctx and reports usage errors in one
  // line naming its own --help (runCli turns the CommanderError into exit code 2).
  const configure = (command: Command) => {
    command.exitOverride().configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      outputError: (text) => ctx.stderr.write(usageErrorLine(text, command)),
    });
    command.commands.forEach(configure);
  };
  configure(program);
  return program;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}

/**
 * Keeps a failed write to stdout or stderr from crashing the process with an unhandled 'error'
 * event and a stack trace; returns whether a real write error happened.
 *
 * EPIPE is a reader that went away (`bin/onair channels list | head -1`): as well-behaved
 * command-line tools do, the rest of the output is dropped without a word. The command still
 * finishes (an ingest is not cut short because its reader stopped reading: nothing is lost)
 * and the exit status is the command's own, 0 when it worked, so a `set -o pipefail` script
 * does not fail over a `| head`. (Writes after the EPIPE go to a destroyed stream: Node drops
 * them without another event.)
 *
 * Any other error (ENOSPC writing stdout to a file on a full disk) is a real failure: one line
 * on stderr and exit status 1, even when the command had already returned.
 */
function guardOutput(io: Pick<CliContext, 'stdout' | 'stderr'>): () => boolean {
  let failed = false;
  const watch = (stream: NodeJS.WritableStream, name: string) => {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') return;
      failed = true;
      process.exitCode = 1;
      if (stream !== io.stderr) {
        io.stderr.write(`onair: error: cannot write ${name}: ${oneLine(error)}\n`);
      }
    });
  };
  watch(io.stdout, 'standard output');
  watch(io.stderr, 'standard error');
  return () => failed;
}

/**
 * Runs the CLI and returns the exit code: 0 on success, 1 when the command failed, 2 for a
 * usage error. Failures are one line on stderr, no stack trace.
 */
export async function runCli(
  argv: readonly string[],
  io: Pick<CliContext, 'stdout' | 'stderr'> = { stdout: process.stdout, stderr: process.stderr },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const outputFailed = guardOutput(io);
  let config;
  try {
    // Whether stdout is a terminal is looked at once, here: it picks the log format.
    config = loadConfig(env, process.cwd(), { stdoutIsTty: io.stdout.isTTY === true });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr.write(`onair: configuration error: ${oneLine(error)}\n`);
      return 1;
    }
    throw error;
  }
  const code = await runCommand(argv, { config, now: systemClock, ...io }, env);
  return outputFailed() ? Math.max(code, 1) : code;
}

/** Runs the command line against `ctx` and returns its exit code. */
async function runCommand(
  argv: readonly string[],
  ctx: CliContext,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  try {
    await buildProgram(ctx).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version output end with a CommanderError of exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof ReportedFailure) return 1;
    if (
      error instanceof CliError ||
      error instanceof ConfigError ||
      error instanceof SchemaVersionError
    ) {
      ctx.stderr.write(`onair: error: ${oneLine(error)}\n`);
      return 1;
    }
    const storage = describeStorageWriteFailure(error);
    ctx.stderr.write(
      storage === null
        ? `onair: error: ${oneLine(error)}\n`
        : `onair: error: cannot write the database: ${storage} (${oneLine(error)})\n`,
    );
    if (env.ONAIR_DEBUG) ctx.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
    return 1;
  }
}
