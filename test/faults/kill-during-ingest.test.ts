import { copyFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, startServe, type CliSandbox } from '../helpers/cli-runner.js';
import { catalogueView, guideText, spawnCli, type CatalogueView } from './fault-helpers.js';

/**
 * `kill -9` of the ingest (and of the server beside it) at points spread over a real
 * `bin/onair ingest`, one of them the moment the merge starts writing to the catalogue file: on
 * restart the catalogue is exactly the old one or exactly the new one, both database files
 * pass SQLite's integrity check, and the next ingest succeeds.
 */

let base: CliSandbox;
let key: string;
let oldView: CatalogueView;
let newView: CatalogueView;
/** How long an undisturbed `bin/onair ingest` of the new guide takes, process start included. */
let ingestMs: number;
const outcomes: string[] = [];

/** The database's files: accounts and catalogue (closed cleanly, so no WAL beside them). */
const DATABASE_FILES = ['onair.db', 'onair.catalogue.db'];

/** A sandbox holding a copy of the base database. */
function copyOfBase(): CliSandbox {
  const sandbox = createCliSandbox();
  for (const file of DATABASE_FILES) copyFileSync(join(base.dir, file), join(sandbox.dir, file));
  return sandbox;
}

beforeAll(async () => {
  base = createCliSandbox();
  writeFileSync(join(base.dir, 'old.xml'), guideText('Old', 25, 400));
  writeFileSync(join(base.dir, 'new.xml'), guideText('New', 30, 400));
  await base.json(['ingest', join(base.dir, 'old.xml'), '--country', 'IE']);
  await base.json([
    'accounts',
    'create',
    '--email',
    'ops@example.com',
    '--verified',
    '--rate-limit',
    '100000',
  ]);
  key = (await base.json<{ key: string }>(['keys', 'create', '--email', 'ops@example.com'])).key;
  const server = await startServe(base);
  oldView = await catalogueView(server.url, key);
  await server.stop();

  const reference = copyOfBase();
  try {
    const started = Date.now();
    await reference.json(['ingest', join(base.dir, 'new.xml'), '--country', 'IE']);
    ingestMs = Date.now() - started;
    const after = await startServe(reference);
    newView = await catalogueView(after.url, key);
    await after.stop();
  } finally {
    reference.dispose();
  }
  expect(oldView.byTitle).toEqual({ Old: 10_000 });
  expect(newView.byTitle).toEqual({ New: 12_000 });
}, 120_000);

afterAll(() => {
  // The outcome of every kill, for the record (docs/hardening.md).
  console.log(`kill -9 during ingest (undisturbed ingest ${ingestMs} ms): ${outcomes.join(', ')}`);
  base?.dispose();
});

/** Resolves once the WAL file of the catalogue grows past its size now: the merge is writing. */
async function walGrows(dir: string, timeoutMs: number): Promise<boolean> {
  const wal = join(dir, 'onair.catalogue.db-wal');
  const size = () => (existsSync(wal) ? statSync(wal).size : 0);
  const start = size();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (size() > start) return true;
    await new Promise((r) => setTimeout(r, 1));
  }
  return false;
}

describe('kill -9 during an ingest', () => {
  const killPoints: { label: string; wait: (dir: string) => Promise<unknown> }[] = [
    ...[0.3, 0.6].map((fraction) => ({
      label: `${Math.round(fraction * 100)} % in`,
      wait: () => new Promise((r) => setTimeout(r, Math.round(ingestMs * fraction))),
    })),
    { label: 'as the merge writes', wait: (dir: string) => walGrows(dir, 60_000) },
  ];

  it.each(killPoints)(
    'killed $label: old or new, never a mix; the next ingest succeeds',
    async ({ label, wait }) => {
      const sandbox = copyOfBase();
      try {
        const server = await startServe(sandbox);
        const ingest = spawnCli(sandbox, ['ingest', join(base.dir, 'new.xml'), '--country', 'IE']);
        await wait(sandbox.dir);
        ingest.child.kill('SIGKILL');
        server.child.removeAllListeners('exit');
        server.child.kill('SIGKILL');
        const exit = await ingest.exited;
        // On a machine quicker now than when the ingest was timed, it may have finished first.
        const finished = exit.signal !== 'SIGKILL';
        if (finished) expect(exit.code, exit.stderr).toBe(0);

        const restarted = await startServe(sandbox);
        try {
          const view = await catalogueView(restarted.url, key);
          const outcome =
            view.hash === oldView.hash ? 'old' : view.hash === newView.hash ? 'new' : 'MIX';
          outcomes.push(`${label}: ${finished ? 'finished before the kill, ' : ''}${outcome}`);
          expect(outcome, JSON.stringify(view.byTitle)).not.toBe('MIX');
          if (finished) expect(outcome).toBe('new');

          for (const file of DATABASE_FILES) {
            const db = new Database(join(sandbox.dir, file), { readonly: true });
            try {
              expect(db.pragma('integrity_check', { simple: true }), file).toBe('ok');
            } finally {
              db.close();
            }
          }

          const again = await sandbox.run(['ingest', join(base.dir, 'new.xml'), '--country', 'IE']);
          expect(again.code, again.stderr).toBe(0);
          expect((await catalogueView(restarted.url, key)).hash).toBe(newView.hash);
        } finally {
          await restarted.stop();
        }
      } finally {
        sandbox.dispose();
      }
    },
  );

  it('interrupted at least one ingest before its commit (the kills really landed mid-ingest)', () => {
    expect(outcomes.filter((o) => o.endsWith(': old')).length).toBeGreaterThan(0);
  });
});

describe('kill -9 as a first ingest builds its indexes after its rows', () => {
  it('leaves the catalogue empty or whole with every index; the next ingest succeeds', async () => {
    // Into an empty catalogue, more programmes than it holds: the merge drops the indexes out
    // of file order and builds them after the rows (LateIndexes in merge-steps.ts).
    const sandbox = createCliSandbox();
    try {
      const guide = join(sandbox.dir, 'first.xml');
      writeFileSync(guide, guideText('First', 40, 400));
      // The catalogue made first, closed cleanly: the WAL grows only when the merge writes.
      const migrated = await sandbox.run(['migrate']);
      expect(migrated.code, migrated.stderr).toBe(0);
      const catalogue = join(sandbox.dir, 'onair.catalogue.db');
      const read = () => {
        const db = new Database(catalogue);
        try {
          return {
            integrity: db.pragma('integrity_check', { simple: true }),
            programmes: db.prepare('SELECT count(*) AS n FROM programmes').get() as { n: number },
            indexes: db
              .prepare(
                `SELECT name, sql FROM sqlite_master
                  WHERE type = 'index' AND tbl_name = 'programmes' ORDER BY name`,
              )
              .all(),
          };
        } finally {
          db.close();
        }
      };
      const before = read();

      // The merge's pages reach the WAL when they outgrow its page cache or at the commit: after
      // the drop, which comes before the rows.
      const ingest = spawnCli(sandbox, ['ingest', guide, '--country', 'IE']);
      await walGrows(sandbox.dir, 60_000);
      ingest.child.kill('SIGKILL');
      const exit = await ingest.exited;
      const killed = read();
      expect(killed.integrity).toBe('ok');
      expect(killed.indexes).toEqual(before.indexes);
      const finished = exit.signal !== 'SIGKILL';
      outcomes.push(
        `first ingest, as the merge writes: ${finished ? 'finished, ' : ''}${killed.programmes.n}`,
      );
      expect([0, 16_000]).toContain(killed.programmes.n);
      if (finished) expect(killed.programmes.n).toBe(16_000);

      const again = await sandbox.run(['ingest', guide, '--country', 'IE']);
      expect(again.code, again.stderr).toBe(0);
      const after = read();
      expect(after.programmes.n).toBe(16_000);
      expect(after.indexes).toEqual(before.indexes);
      expect(after.integrity).toBe('ok');
    } finally {
      sandbox.dispose();
    }
  }, 120_000);
});
