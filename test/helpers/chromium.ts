import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ensureDebianPackage, INSTALL_TIMEOUT_MS } from './debian-packages.js';

/**
 * Debian's Chromium, never a downloaded browser: installed by `.ci/run`, or by the browser
 * tests themselves on a fresh machine (ensureChromium). CHROMIUM_PATH names another build.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the browser tests leave their screenshots. */
export const RESULTS = resolve(import.meta.dirname, '../../test-results');
/**
 * `ONAIR_SKIP_BROWSER=1` skips the browser tests, on purpose only: without it a missing
 * Chromium is installed, or the tests fail saying how to install it.
 */
export const SKIP_BROWSER = process.env.ONAIR_SKIP_BROWSER === '1';
if (SKIP_BROWSER) console.warn('ONAIR_SKIP_BROWSER=1: the browser tests are skipped');

/** How long a browser test's set-up may take: a fresh machine installs Chromium first. */
export const BROWSER_SETUP_TIMEOUT_MS = INSTALL_TIMEOUT_MS + 60_000;

/** Installs Debian's Chromium when it is missing (the default path only). */
function ensureChromium(): void {
  if (process.env.CHROMIUM_PATH !== undefined) {
    if (!existsSync(CHROMIUM))
      throw new Error(`CHROMIUM_PATH names ${CHROMIUM}, which does not exist`);
    return;
  }
  ensureDebianPackage('chromium', () => existsSync(CHROMIUM), `${CHROMIUM} is missing`);
}

/**
 * Launches Debian's Chromium headless, with what this closed network needs: no background
 * networking, updates or sync (their connections would be refused, many at a time).
 */
export async function launchChromium(): Promise<Browser> {
  ensureChromium();
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
