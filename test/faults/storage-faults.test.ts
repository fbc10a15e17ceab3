import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  ONAIR_BIN,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { catalogueView, guideText, type CatalogueView } from './fault-helpers.js';

/**
 * The database file read-only, or the disk under the database (or under SQLite's temporary
 * files) full, while `bin/onair ingest` runs beside a serving `bin/onair serve`: the ingest
 * stops with one line naming the cause, the server keeps serving the old catalogue, and once
 * the cause is gone the next ingest succeeds. The full disk is a real one: a small tmpfs
 * (mounting needs root, as in CI; elsewhere that part is skipped and says so).
 */

const asRoot = process.getuid?.() === 0;

/** Mounts a tmpfs of `size` at `dir`; false when this machine does not let us. */
function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  } catch {
    // Not mounted.
  }
}

const canMount = (() => {
  if (!asRoot) return false;
  const probe = mkdtempSync(join(tmpdir(), 'onair-mount-probe-'));
  try {
    const mounted = mountTmpfs(probe, '1m');
    if (mounted) unmount(probe);
    return mounted;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/** A sandbox with the old guide ingested, an account with a key, and guides to ingest. */
async function prepare(
  cli: CliSandbox,
  newGuide: string,
): Promise<{ key: string; newFile: string }> {
  const guides = mkdtempSync(join(tmpdir(), 'onair-guides-'));
  chmodSync(guides, 0o755);
  const oldFile = join(guides, 'old.xml');
  const newFile = join(guides, 'new.xml');
  writeFileSync(oldFile, guideText('Old', 5, 50));
  writeFileSync(newFile, newGuide);
  await cli.json(['ingest', oldFile, '--country', 'IE']);
  await cli.json([
    'accounts',
    'create',
    '--email',
    'ops@example.com',
    '--verified',
    '--rate-limit',
    '100000',
  ]);
  const { key } = await cli.json<{ key: string }>(['keys', 'create', '--email', 'ops@example.com']);
  return { key, newFile };
}

function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0] ?? '';
}

describe('the database files are read-only during an ingest', () => {
  let cli: CliSandbox;
  let server: ServeProcess;
  let key: string;
  let newFile: string;
  let before: CatalogueView;

  beforeAll(async () => {
    cli = createCliSandbox();
    ({ key, newFile } = await prepare(cli, guideText('New', 6, 50)));
    server = await startServe(cli);
    before = await catalogueView(server.url, key);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    cli?.dispose();
  });

  it('stops with one line naming it; the server keeps serving the old catalogue; then succeeds', async () => {
    const files = [join(cli.dir, 'onair.db'), join(cli.dir, 'onair.catalogue.db')];
    // The files (accounts and catalogue) and their directory are not writable by the user running the ingest. Root may
    // write anyway, so as root the ingest runs without the capabilities that let root ignore
    // file modes (as an operator's unprivileged account would; running it as another user
    // instead would need every directory above the checkout to be open to that user).
    chmodSync(cli.dir, asRoot ? 0o555 : 0o755);
    for (const file of files) chmodSync(file, 0o444);
    const ingestArgs = [ONAIR_BIN, 'ingest', newFile, '--country', 'IE'];
    const command = asRoot
      ? ['setpriv', ['--bounding-set=-dac_override,-dac_read_search', ...ingestArgs]]
      : [ONAIR_BIN, ingestArgs.slice(1)];
    const [file, args] = command as [string, string[]];
    let failure: { status: number | null; stderr: string };
    try {
      execFileSync(file, args, { cwd: cli.dir, env: cli.env, stdio: 'pipe' });
      failure = { status: 0, stderr: '' };
    } catch (error) {
      const e = error as { status: number | null; stderr: Buffer };
      failure = { status: e.status, stderr: e.stderr.toString() };
    }
    expect(failure.status).toBe(1);
    expect(oneLine(failure.stderr)).toMatch(/^onair: error: .*the database is read-only .*/);
    expect(await catalogueView(server.url, key)).toEqual(before);

    chmodSync(cli.dir, 0o755);
    for (const file of files) chmodSync(file, 0o644);
    const again = await cli.run(['ingest', newFile, '--country', 'IE']);
    expect(again.code, again.stderr).toBe(0);
    expect((await catalogueView(server.url, key)).byTitle).toEqual({ New: 300 });
  });
});

describe.skipIf(!canMount)('the disk is full during an ingest (a real tmpfs; needs root)', () => {
  let cli: CliSandbox;
  let server: ServeProcess;
  let key: string;
  let newFile: string;
  let before: CatalogueView;
  let disk: string;
  let tempDisk: string;

  beforeAll(async () => {
    cli = createCliSandbox();
    disk = join(cli.dir, 'disk');
    tempDisk = join(cli.dir, 'temp-disk');
    mkdirSync(disk);
    mkdirSync(tempDisk);
    // Room for the old catalogue, not for the new one (about 4 MB once stored).
    expect(mountTmpfs(disk, '2m')).toBe(true);
    expect(mountTmpfs(tempDisk, '1m')).toBe(true);
    cli.env.DATABASE_URL = join(disk, 'onair.db');
    ({ key, newFile } = await prepare(cli, guideText('New', 20, 400)));
    server = await startServe(cli);
    before = await catalogueView(server.url, key);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    unmount(disk);
    unmount(tempDisk);
    cli?.dispose();
  });

  it('the database disk: one line naming it, old catalogue served, never a 500; after room is made the ingest succeeds', async () => {
    const full = await cli.run(['ingest', newFile, '--country', 'IE']);
    expect(full.code).toBe(1);
    expect(oneLine(full.stderr)).toMatch(
      /^onair: error: .*new\.xml: cannot store the guide: the disk holding the database or its temporary files is full \(database or disk is full\); the catalogue is unchanged$/,
    );
    expect(await catalogueView(server.url, key)).toEqual(before);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    // A page that writes (a sign-in link) may find no room: a 503, never a 500.
    const signIn = await fetch(`${server.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: 'email=full%40example.com',
    });
    expect([200, 503]).toContain(signIn.status);

    // The temporary files' disk is full instead: staging fails the same clear way. Staging
    // keeps 16 MB in memory before it spills to temporary files, so this guide is larger.
    execFileSync('mount', ['-o', 'remount,size=512m', disk]);
    const bigFile = join(cli.dir, 'big.xml');
    writeFileSync(bigFile, guideText('Big', 100, 1500));
    const tempFull = await cli.run(['ingest', bigFile, '--country', 'IE'], {
      SQLITE_TMPDIR: tempDisk,
    });
    expect(tempFull.code).toBe(1);
    expect(oneLine(tempFull.stderr)).toMatch(
      /is full \(database or disk is full\); the catalogue is unchanged$/,
    );
    expect(await catalogueView(server.url, key)).toEqual(before);

    const roomy = await cli.run(['ingest', newFile, '--country', 'IE']);
    expect(roomy.code, roomy.stderr).toBe(0);
    expect((await catalogueView(server.url, key)).byTitle).toEqual({ New: 8_000 });
  });
});
