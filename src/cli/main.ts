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

/** Builds the `onair` command tree. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('onair')
    .description('Onair: XMLTV guide data in, API-key protected schedule API out')
    .version(packageVersion(), '-V, --version', 'print the Onair version')
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .exitOverride();
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
  // Sub-sub-commands inherit the same output settings and error handling.
  const configure = (command: Command) => {
    command
      .exitOverride()
      .showHelpAfterError('(add --help for usage)')
      .configureOutput({
        writeOut: (text) => ctx.stdout.write(text),
        writeErr: (text) => ctx.stderr.write(text),
      });
    command.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
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
  const ctx: CliContext = { config, now: systemClock, ...io };
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
      io.stderr.write(`onair: error: ${oneLine(error)}\n`);
      return 1;
    }
    const storage = describeStorageWriteFailure(error);
    io.stderr.write(
      storage === null
        ? `onair: error: ${oneLine(error)}\n`
        : `onair: error: cannot write the database: ${storage} (${oneLine(error)})\n`,
    );
    if (env.ONAIR_DEBUG) io.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
    return 1;
  }
}
