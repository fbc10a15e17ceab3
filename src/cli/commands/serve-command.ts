import { Command } from 'commander';
import type { DemoSeed } from '../../demo-seed.js';
import type { CliContext } from '../cli-context.js';

/** `onair serve`: run the HTTP API until SIGINT/SIGTERM. */
export function serveCommand(ctx: CliContext): Command {
  return new Command('serve')
    .description(
      'serve the HTTP API (HOST, PORT, DATABASE_URL, PUBLIC_URL, … from the environment)',
    )
    .option('--demo', 'on an empty catalogue, load demo data and create a demo account with a key')
    .action(async (opts: { demo?: boolean }) => {
      // Loaded here, not with the CLI: the server's modules take 0.2 s of every other
      // command's 0.4 s start (`time bin/onair accounts list`).
      const { startServer } = await import('../../server.js');
      const { DEMO_EMAIL, seedDemo } = await import('../../demo-seed.js');
      let seeded: DemoSeed | null = null;
      let demoAccountExists = false;
      const server = await startServer(ctx.config, {
        now: ctx.now,
        beforeListen: opts.demo
          ? async (store) => {
              seeded = await seedDemo(store, ctx.now());
              demoAccountExists = (await store.accounts.findAccountByEmail(DEMO_EMAIL)) !== null;
            }
          : undefined,
      });
      const site = ctx.config.publicUrlExplicit ? ctx.config.publicUrl : server.url;
      const mail =
        ctx.config.smtpUrl === null ? `written to ${ctx.config.outboxDir}` : 'sent by SMTP';
      const banner = [
        `Onair is serving ${server.url} (database: ${describeDatabase(ctx)})`,
        `Account pages: ${site}/signin (sign-in mail is ${mail})`,
      ];
      if (seeded !== null) {
        banner.push(...(seeded as DemoSeed).describe(server.url));
      } else if (demoAccountExists) {
        // A later `npm start`: the key was shown once, so say how to get another.
        banner.push(
          `The catalogue is already loaded. A new key for the demo account: bin/onair keys create --email ${DEMO_EMAIL}`,
        );
      }
      ctx.stdout.write(`${banner.join('\n')}\n`);

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

function describeDatabase(ctx: CliContext): string {
  const { database } = ctx.config;
  return database.engine === 'sqlite' ? database.path : 'PostgreSQL';
}
