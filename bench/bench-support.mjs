// Pieces a benchmark that serves a catalogue needs: a free port, a child process started and
// awaited until it says it is ready, and a PostgreSQL database made when missing. Used by
// bench/search.mjs; bench/http.mjs has its own copies of the same steps.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 at the time of the call. */
export async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts `command` and resolves once its standard output matches `ready`. */
export function startProcess(command, args, env, ready, stdin) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (ready.test(out)) resolvePromise(child);
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${out}`)));
    if (stdin !== undefined) child.stdin.end(stdin);
  });
}

/** Creates the database `url` names when the server has none of that name. */
export async function ensurePostgresDatabase(url) {
  const { default: pg } = await import('pg');
  const parsed = new URL(url);
  const admin = new pg.Client({ connectionString: url.replace(parsed.pathname, '/postgres') });
  await admin.connect();
  try {
    const name = parsed.pathname.slice(1);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}
