import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { withStore, type CliContext } from './cli-context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A context whose SQLite file is `path`, as if DATABASE_URL said it (or, not, the default). */
function context(path: string, databaseExplicit: boolean): { ctx: CliContext; said: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const config = { ...loadConfig({ DATABASE_URL: path }), databaseExplicit };
  const ctx = { config, now: () => Date.now(), stdout: new PassThrough(), stderr };
  return { ctx, said: () => text };
}

describe('withStore', () => {
  it('says when it made the default SQLite database, DATABASE_URL being unset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-cli-context-'));
    dirs.push(dir);
    const path = join(dir, 'onair.db');
    const first = context(path, false);
    await withStore(first.ctx, async () => undefined);
    expect(first.said()).toBe(
      `onair: note: no DATABASE_URL set: made a new SQLite database at ${path}\n`,
    );
    // The file there: nothing to say. Nor when DATABASE_URL names a file, new or not.
    const again = context(path, false);
    await withStore(again.ctx, async () => undefined);
    expect(again.said()).toBe('');
    const named = context(join(dir, 'other.db'), true);
    await withStore(named.ctx, async () => undefined);
    expect(named.said()).toBe('');
  });
});
