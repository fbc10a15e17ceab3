import { Command } from 'commander';
import { DEFAULT_SQLITE_PATH } from '../../config.js';
import type { DemoStart } from '../../demo-seed.js';
import type { RunningServer } from '../../server.js';
import { ReportedFailure, type CliContext } from '../cli-context.js';

/** `onair serve`: run the HTTP API until SIGINT/SIGTERM. */
export function serveCommand(ctx: CliContext): Command {
  return new Command('serve')
    .description(
      'serve the HTTP API (HOST, PORT, DATABASE_URL, PUBLIC_URL, … from the environment)',
    )
    .option(
      '--demo',
      'on an empty catalogue, load demo data and create a demo account with a key; on the demo alone, move it to this week',
    )
    .action(async (opts: { demo?: boolean }) => {
      // Loaded here, not with the CLI: the server's modules take 0.2 s of every other
      // command's 0.4 s start (`time bin/onair accounts list`).
      const { startServer } = await import('../../server.js');
      const { startDemo } = await import('../../demo-seed.js');
      let demo: DemoStart | null = null;
      let server: RunningServer;
      try {
        server = await startServer(ctx.config, {
          now: ctx.now,
          beforeListen: opts.demo
            ? async (store) => {
                demo = await startDemo(store, ctx.now());
              }
            : undefined,
        });
      } catch (error) {
        const line = cannotListen(error, ctx, opts.demo === true);
        if (line === null) throw error;
        ctx.stderr.write(`${line}\n`);
        throw new ReportedFailure(line);
      }
      const banner = startBanner(ctx, server.url, demo);
      ctx.stdout.write(`${banner.join('\n')}\n`);
      server.app.log.info(`listening at ${server.url}`);

      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          // A second signal does not wait for slow clients any longer.
          const hurry = (again: string) => {
            server.app.log.warn({ signal: again }, 'cutting the connections still open');
            server.cutConnections();
          };
          process.once('SIGINT', hurry);
          process.once('SIGTERM', hurry);
          server.app.log.info(
            { signal, timeoutMs: ctx.config.shutdownTimeoutMs },
            'shutting down: no new connections, waiting for responses in flight',
          );
          server.close().then(
            ({ cut }) => {
              server.app.log.info({ cut }, 'stopped: connections drained, database closed');
              resolve();
            },
            (error: unknown) => {
              server.app.log.error({ err: error }, 'error during shutdown');
              resolve();
            },
          );
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}

/**
 * A command for this server's database, as the banner suggests it: with its DATABASE_URL when
 * that is not the default (a file path is shown; a PostgreSQL URL, which may hold a password,
 * is only named).
 */
function commandForThisDatabase(ctx: CliContext, command: string): string {
  const { database } = ctx.config;
  if (database.engine === 'postgres') return `${command} (with this server's DATABASE_URL)`;
  if (database.path === DEFAULT_SQLITE_PATH) return command;
  return `DATABASE_URL=${shellWord(database.path)} ${command}`;
}

/** A word a POSIX shell reads back as it is: quoted when it holds anything but safe characters. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

function describeDatabase(ctx: CliContext): string {
  const { database } = ctx.config;
  return database.engine === 'sqlite' ? database.path : 'PostgreSQL';
}

/**
 * What `serve` prints once it listens. The first line says where and how to get an API key
 * (the demo's key itself when it was just made: it is shown only now).
 */
function startBanner(ctx: CliContext, url: string, demo: DemoStart | null): string[] {
  const site = ctx.config.publicUrlExplicit ? ctx.config.publicUrl : url;
  const mail =
    ctx.config.smtpUrl === null ? `is written to ${ctx.config.outboxDir}` : 'is sent by SMTP';
  const about = `Docs: ${site}/docs · database: ${describeDatabase(ctx)}`;
  if (demo?.kind === 'seeded') {
    const { seed } = demo;
    return [
      `Onair is serving ${url} — your demo API key (shown only now): ${seed.key}`,
      `Try: curl -H "Authorization: Bearer ${seed.key}" ${url}/api/v1/countries`,
      `Demo data: ${seed.channels} channels, ${seed.programmes} programmes; account ${seed.email} (sign in at ${site}/signin, the mail ${mail})`,
      `${about} · next steps: README.md`,
    ];
  }
  if (demo !== null && demo.account !== null) {
    // A later `npm start`: the key was shown once, so say how to get another.
    const data =
      demo.kind === 'other'
        ? 'The catalogue holds more than the demo, so it is left as it is'
        : demo.moved
          ? 'Demo data moved to this week'
          : 'Demo data already loaded';
    return [
      `Onair is serving ${url} — a new API key for the demo account: ${commandForThisDatabase(ctx, `bin/onair keys create --email ${demo.account}`)}`,
      `${data}; account ${demo.account} (sign in at ${site}/signin, the mail ${mail})`,
      about,
    ];
  }
  return [
    `Onair is serving ${url} — for an API key, sign in at ${site}/signin`,
    `Sign-in mail ${mail}; operator commands: bin/onair --help`,
    about,
  ];
}

/**
 * The one line for an address `serve` cannot listen on, naming the setting that fixes it; null
 * for any other failure.
 */
function cannotListen(error: unknown, ctx: CliContext, demo: boolean): string | null {
  const { host, port } = ctx.config;
  const command = demo ? 'npm start' : 'bin/onair serve';
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return `onair serve: port ${port} on ${host} is in use; set PORT (and HOST) to another, e.g. PORT=${port === 65535 ? 8081 : port + 1} ${command}`;
    case 'EACCES':
      return `onair serve: not allowed to listen on port ${port} on ${host} (ports below 1024 need privileges); set PORT to another, e.g. PORT=8080 ${command}`;
    case 'EADDRNOTAVAIL':
      return `onair serve: ${host} is not an address of this machine; set HOST to one that is, e.g. HOST=127.0.0.1 ${command}`;
    default:
      return null;
  }
}
