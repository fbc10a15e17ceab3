import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; CI installs it (`.ci/run`). Never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the browser tests leave their screenshots. */
export const RESULTS = resolve(import.meta.dirname, '../../test-results');
/** `ONAIR_SKIP_BROWSER=1` skips the browser tests on a machine without Chromium. */
export const SKIP_BROWSER = process.env.ONAIR_SKIP_BROWSER === '1';

/**
 * Launches Debian's Chromium headless, with what this closed network needs: no background
 * networking, updates or sync (their connections would be refused, many at a time).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium), or set ONAIR_SKIP_BROWSER=1 to skip the browser tests`,
    );
  }
  mkdirSync(RESULTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
