import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * `npm install` is clean on the lowest Node that package.json's `engines` names: every package
 * the lock installs supports it (optional platform builds that npm skips aside). Three direct
 * dependencies are held at the last versions that still run on Node 20 (`@fastify/cookie`
 * 11.1.0 and `light-my-request` 6.6.0 with cookie 1, `@fastify/static` 10.1.3 with
 * content-disposition 2); their next versions want Node 22.
 */
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { engines?: unknown; optional?: boolean; version?: string }>;
};

describe('the Node versions package.json claims', () => {
  it('run every package the lock installs', () => {
    const lowest = semver.minVersion(manifest.engines.node)?.version;
    expect(lowest).toBeDefined();
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const engines = entry.engines as { node?: string } | undefined;
      if (path === '' || entry.optional === true || typeof engines?.node !== 'string') return [];
      return semver.satisfies(lowest ?? '', engines.node) ? [] : [`${path} (${engines.node})`];
    });
    expect(refusing).toEqual([]);
  });

  it('include the Node this machine runs', () => {
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true);
  });
});
