import { execFileSync } from 'node:child_process';

/** Longest an install may take (apt-get update, then the package and its dependencies). */
export const INSTALL_TIMEOUT_MS = 10 * 60_000;

/**
 * Makes sure a Debian package the tests need is installed. On a fresh machine (CI, a new
 * clone) `npm test` installs it with apt-get when this process may (root), as `.ci/run` does;
 * otherwise it fails with the command to run. Test files run in parallel workers, so installs
 * take turns under one lock (`flock`), and each checks again once it holds it.
 */
export function ensureDebianPackage(name: string, present: () => boolean, why: string): void {
  if (present()) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${why}: install Debian's ${name} (sudo apt-get install ${name})`);
  }
  execFileSync(
    'flock',
    [
      '/tmp/onair-test-apt.lock',
      'sh',
      '-c',
      // Installed meanwhile by another worker: nothing to do.
      `dpkg -s "$0" >/dev/null 2>&1 || { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
        apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$0"; }`,
      name,
    ],
    {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: INSTALL_TIMEOUT_MS,
    },
  );
  if (!present()) throw new Error(`apt-get installed ${name}, but ${why.toLowerCase()} still`);
}
