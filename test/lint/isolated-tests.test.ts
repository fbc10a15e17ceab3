import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Test files share their worker process (`isolate: false` in vitest.config.ts), so a module one
 * file replaces would stay replaced for the files after it, or the replacement would find the
 * real module already loaded and not apply. A file that replaces modules is therefore named
 * `*.isolated.test.ts`, which the config runs in a process of its own.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const REPLACES_A_MODULE = /\bvi\.(?:do)?mock\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => join(dir, path));
}

describe('test files that replace a module', () => {
  const files = ['src', 'test'].flatMap((dir) => testFiles(join(ROOT, dir)));

  it('are named *.isolated.test.ts, so they run in a process of their own', () => {
    expect(files.length).toBeGreaterThan(100);
    const shared = files.filter(
      (file) =>
        !file.endsWith('.isolated.test.ts') &&
        file !== import.meta.filename &&
        REPLACES_A_MODULE.test(readFileSync(file, 'utf8')),
    );
    expect(shared.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('are found by the check (the two worker-thread tests replace node:worker_threads)', () => {
    const isolated = files.filter((file) => file.endsWith('.isolated.test.ts'));
    expect(isolated.map((file) => relative(ROOT, file)).sort()).toEqual([
      'src/storage/sqlite/search-worker.isolated.test.ts',
      'src/storage/sqlite/staging-worker.isolated.test.ts',
    ]);
    for (const file of isolated) expect(readFileSync(file, 'utf8')).toMatch(REPLACES_A_MODULE);
  });
});
