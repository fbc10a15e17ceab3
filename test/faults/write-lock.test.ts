import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { openSqliteDatabase } from '../../src/storage/sqlite/database.js';

/**
 * An ingest's merge holds the catalogue file's write lock for as long as it takes (seconds for
 * a large guide): account writes, in a file of their own, go on meanwhile. Another process may
 * also hold the accounts file's write lock for a while (a command, a backup). Either way the
 * server must keep answering at full speed: its own writes (key usage, a sign-in link) may not
 * make its event loop wait for a lock. Usage noted meanwhile is written once the lock is free,
 * not lost; a sign-in that cannot be written answers 503 at once.
 */

let cli: CliSandbox;
let server: ServeProcess;
let key: string;

beforeAll(async () => {
  cli = createCliSandbox();
  await cli.json(['ingest', fixturePath('basic.xml'), '--country', 'IE']);
  await cli.json([
    'accounts',
    'create',
    '--email',
    'lock@example.com',
    '--verified',
    '--rate-limit',
    '1000',
  ]);
  key = (await cli.json<{ key: string }>(['keys', 'create', '--email', 'lock@example.com'])).key;
  server = await startServe(cli);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  cli?.dispose();
});

/** Requests counted in the usage table so far. */
function usageRequests(db: Database.Database): number {
  return (
    db.prepare('SELECT coalesce(sum(requests), 0) AS n FROM usage_hourly').get() as { n: number }
  ).n;
}

async function timed(url: string, init: RequestInit = {}): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return { status: res.status, ms: Date.now() - started };
}

describe("while an ingest holds the catalogue file's write lock (its merge)", () => {
  it('account writes go on: sign-in links, key usage; the catalogue is still read', async () => {
    const catalogue = new Database(join(cli.dir, 'onair.catalogue.db'));
    const accounts = new Database(join(cli.dir, 'onair.db'), { readonly: true });
    const usage = () => usageRequests(accounts);
    const before = usage();
    catalogue.exec('BEGIN IMMEDIATE');
    try {
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${server.url}/api/v1/countries`, {
          headers: { authorization: `Bearer ${key}` },
        });
        await res.arrayBuffer();
        answers.push(res.status);
      }
      expect(answers).toEqual([200, 200, 200, 200, 200]);
      const signIn = await timed(`${server.url}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: 'email=catalogue-locked%40example.com',
      });
      expect(signIn.status).toBe(200);
      expect(signIn.ms).toBeLessThan(1_000);
      // The server's usage flush (every 5 s) is written while the catalogue stays locked.
      await expect
        .poll(usage, { timeout: 15_000, interval: 250 })
        .toBeGreaterThanOrEqual(before + answers.length);
      // A catalogue write meanwhile is what waits: the lock is really held.
      const other = openSqliteDatabase(join(cli.dir, 'onair.db'), 100);
      try {
        expect(() => other.exec('UPDATE channels SET icon = icon')).toThrow(/locked/);
        expect(() =>
          other.exec("UPDATE data_versions SET version = version WHERE name = 'auth'"),
        ).not.toThrow();
      } finally {
        other.close();
      }
    } finally {
      catalogue.exec('ROLLBACK');
      catalogue.close();
      accounts.close();
    }
  }, 30_000);
});

describe("while another process holds the accounts file's write lock", () => {
  it('the server answers without stalling, and writes the usage it noted afterwards', async () => {
    const db = new Database(join(cli.dir, 'onair.db'));
    const usage = () => usageRequests(db);
    const before = usage();
    // Hold the lock across the server's next usage flush (every 5 s).
    db.exec('BEGIN IMMEDIATE');
    const heldUntil = Date.now() + 6_000;
    const answers: { status: number; ms: number }[] = [];
    let signIn: { status: number; ms: number } | null = null;
    let sent = 0;
    // A prober of its own, so a stall shows even while the loop below waits for an answer.
    const probes: number[] = [];
    const prober = (async () => {
      while (Date.now() < heldUntil) {
        probes.push((await timed(`${server.url}/healthz`)).ms);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      while (Date.now() < heldUntil) {
        answers.push(
          await timed(`${server.url}/api/v1/countries`, {
            headers: { authorization: `Bearer ${key}` },
          }),
          await timed(`${server.url}/healthz`),
        );
        sent++;
        if (signIn === null && Date.now() > heldUntil - 3_000) {
          signIn = await timed(`${server.url}/signin`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
            body: 'email=locked%40example.com',
          });
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await prober;
    } finally {
      db.exec('COMMIT');
    }
    expect(Math.max(...probes)).toBeLessThan(1_000);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(1_000);
    // A write the lock keeps out is refused quickly, as storage briefly unavailable.
    expect(signIn?.status).toBe(503);
    expect(signIn?.ms).toBeLessThan(1_500);
    // Once the lock is free, the usage noted meanwhile is written: nothing lost.
    await expect
      .poll(usage, { timeout: 15_000, interval: 250 })
      .toBeGreaterThanOrEqual(before + sent);
    db.close();
  });
});
