/**
 * Lints the OpenAPI document a server publishes at /openapi.json with Redocly CLI, by the rules of
 * redocly.yaml (its recommended rules, each an error, so a warning fails too). The document is
 * built as a server builds it, from the routes' schemas, by the app over an empty in-memory
 * catalogue, without listening: `npm run lint:openapi` (part of `npm run lint`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig, PROJECT_ROOT } from '../src/config.js';
import { createServices } from '../src/deps.js';
import { createLogger } from '../src/logger.js';
import { openStore } from '../src/open-store.js';

async function openApiDocument(): Promise<string> {
  const config = loadConfig({ DATABASE_URL: ':memory:' });
  const store = await openStore(config);
  const logger = createLogger('warn', new Writable({ write: (_chunk, _encoding, done) => done() }));
  const services = await createServices(config, store, logger);
  try {
    const app = await buildApp({ config, store, now: Date.now, ...services }, logger);
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    await app.close();
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.body;
  } finally {
    await services.close();
    await store.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'onair-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, await openApiDocument());
  const lint = spawnSync(
    resolve(PROJECT_ROOT, 'node_modules/.bin/redocly'),
    ['lint', '--config', resolve(PROJECT_ROOT, 'redocly.yaml'), file],
    {
      stdio: 'inherit',
      // A lint sends nothing anywhere, and does not ask to be updated.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
