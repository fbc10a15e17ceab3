import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import type { Store } from '../../src/storage/store.js';
import { launchChromium } from './chromium.js';

/** An Onair server on a scratch SQLite file, and Debian's Chromium to drive it. */
export interface BrowserServer {
  readonly server: RunningServer;
  readonly browser: Browser;
  /** Closes the browser and the server and removes the scratch directory. */
  close(): Promise<void>;
}

/**
 * Starts a server as a user would (`PORT=0`; `LOG_LEVEL=warn` to keep the test output short),
 * with `env` on top, then launches Chromium. A set-up that fails half-way undoes what it did.
 */
export async function startBrowserServer(
  env: Readonly<Record<string, string>> = {},
  options: StartOptions = {},
): Promise<BrowserServer> {
  const dir = mkdtempSync(join(tmpdir(), 'onair-browser-'));
  let server: RunningServer | undefined;
  try {
    server = await startServer(
      loadConfig({ DATABASE_URL: join(dir, 'onair.db'), PORT: '0', LOG_LEVEL: 'warn', ...env }),
      options,
    );
    const browser = await launchChromium();
    const running = server;
    return {
      server: running,
      browser,
      close: async () => {
        await browser.close();
        await running.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Ingests the small Irish guide (two channels) the account pages show, as of now. */
export async function ingestBasicGuide(store: Store): Promise<void> {
  await ingestXmltv(
    store.ingest,
    { source: resolve(import.meta.dirname, '../fixtures/xmltv/basic.xml') },
    { country: 'IE', assumeOffsetMinutes: 0, nowMs: Date.now() },
  );
}
