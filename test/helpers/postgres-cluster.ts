import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-process.js';

/** A throw-away PostgreSQL cluster on its own port, for tests that stop the database. */
export interface PostgresCluster {
  url: string;
  start(): void;
  /** Stops at once, as a crash or a network cut would look to clients. */
  stop(): void;
  destroy(): void;
}

function binaries(): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root).sort().at(-1);
  if (version === undefined) throw new Error('PostgreSQL server binaries not found');
  return join(root, version, 'bin');
}

export async function throwAwayPostgres(): Promise<PostgresCluster> {
  const bin = binaries();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'onair-pg-'));
  const data = join(dir, 'data');
  // PostgreSQL refuses to run as root: run its tools as the postgres user then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], {
          stdio: 'ignore',
        })
      : execFileSync(join(bin, tool), args, { stdio: 'ignore' });
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const cluster: PostgresCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      run('pg_ctl', [
        '-D',
        data,
        '-w',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        '-l',
        join(dir, 'log'),
        'start',
      ]);
    },
    stop() {
      if (existsSync(join(data, 'postmaster.pid')))
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    destroy() {
      try {
        cluster.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return cluster;
}
