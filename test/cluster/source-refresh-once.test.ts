import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../src/storage/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { ENGINES, freshPostgresDatabase } from '../helpers/engines.js';
import { conditionalGuide, startGuideServer, type GuideServer } from '../helpers/guide-server.js';
import { freePort } from '../helpers/redis-process.js';

const HOUR = 3_600_000;
const xmltvTime = (ms: number) =>
  `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
const GUIDE = Buffer.from(`<tv><channel id="fleet.ie"><display-name>Fleet</display-name></channel>
<programme start="${xmltvTime(Date.now())}" stop="${xmltvTime(Date.now() + 48 * HOUR)}" channel="fleet.ie"><title>All day</title></programme></tv>`);

/** A publisher that takes its time, so a refresh is still running when others look. */
function slowGuide(delayMs: number) {
  const answer = conditionalGuide(() => ({
    body: GUIDE,
    etag: '"fleet"',
    lastModified: 'Mon, 23 Nov 2026 06:00:00 GMT',
  }));
  return (req: Parameters<typeof answer>[0], res: Parameters<typeof answer>[1]) => {
    setTimeout(() => answer(req, res), delayMs);
  };
}

async function until<T>(probe: () => Promise<T | null>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let cli: CliSandbox;
let guides: GuideServer;
beforeAll(async () => {
  cli = createCliSandbox();
  guides = await startGuideServer();
});
afterAll(async () => {
  await guides.close();
  cli.dispose();
});

describe.runIf(ENGINES.includes('postgres'))(
  'two serve instances over one PostgreSQL database',
  () => {
    let database: { url: string; drop(): Promise<void> };
    let store: PostgresStore;
    const instances: ServeProcess[] = [];

    afterEach(async () => {
      for (const instance of instances.splice(0)) await instance.stop();
      await store?.close();
      await database?.drop();
    });

    it('refresh a due source exactly once, each time it falls due', async () => {
      database = await freshPostgresDatabase();
      guides.on('/fleet.xml', slowGuide(1_500));
      const env = { DATABASE_URL: database.url, SOURCE_CHECK_SECONDS: '1' };
      const added = await cli.run(
        [
          'sources',
          'add',
          `${guides.base}/fleet.xml`,
          '--country',
          'IE',
          '--every',
          '1h',
          '--json',
        ],
        env,
      );
      expect(added.code, added.stderr).toBe(0);
      const id = (JSON.parse(added.stdout) as { id: string }).id;
      // And one whose publisher is gone: its failed refresh flags it, a warning to log once.
      guides.on('/gone.xml', (_req, res) => {
        res.writeHead(404);
        res.end();
      });
      const gone = await cli.run(
        ['sources', 'add', `${guides.base}/gone.xml`, '--country', 'IE', '--json'],
        env,
      );
      expect(gone.code, gone.stderr).toBe(0);
      const goneId = (JSON.parse(gone.stdout) as { id: string }).id;
      store = await openPostgresStore({ url: database.url, nowMs: Date.now() });

      // Both start at once with the source due: each looks at once, and then every second.
      const start = async () => {
        const port = await freePort();
        return startServe(cli, [], { ...env, PORT: String(port) });
      };
      instances.push(...(await Promise.all([start(), start()])));

      let previousAttempt = 0;
      for (const [round, expected] of ['ingested', 'not-modified', 'not-modified'].entries()) {
        const done = await until(
          async () => {
            const source = await store.sources.findSource(id);
            return source?.lastOutcome === expected &&
              source.leaseHolder === null &&
              (source.lastAttemptAt ?? 0) > previousAttempt
              ? source
              : null;
          },
          `refresh ${round + 1} ending ${expected}`,
        );
        // Several more checks by both instances: none refreshes it again before it is due.
        await new Promise((r) => setTimeout(r, 3_000));
        expect(guides.seen('/fleet.xml')).toHaveLength(round + 1);
        expect((await store.sources.findSource(id))?.lastAttemptAt).toBe(done.lastAttemptAt);
        previousAttempt = done.lastAttemptAt ?? 0;
        // Due again now.
        await store.pool.query('UPDATE sources SET next_run_at = 0 WHERE id = $1', [id]);
      }
      // Three times due, three requests in all, from one instance or the other.
      expect(guides.seen('/fleet.xml')).toHaveLength(3);
      // The gone publisher: asked once (the next try is minutes away), and after some thirty
      // health checks by the two instances one warning about it, from one of them.
      expect(guides.seen('/gone.xml')).toHaveLength(1);
      const warnings = instances
        .flatMap((instance) => instance.output().split('\n'))
        .filter((line) => line.includes('source needs attention'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({
        source: goneId,
        flags: ['last-refresh-failed'],
      });
      const files = await store.pool.query('SELECT count(*)::int AS n FROM source_files');
      expect(files.rows[0]).toEqual({ n: 1 });
    });
  },
);

describe('a CLI refresh beside a serving SQLite instance', () => {
  let serve: ServeProcess | null = null;
  let store: Store | null = null;
  afterEach(async () => {
    await serve?.stop();
    await store?.close();
  });

  it('does not refresh a source the server is refreshing', async () => {
    guides.on('/beside.xml', slowGuide(3_000));
    const added = await cli.json<{ id: string }>([
      'sources',
      'add',
      `${guides.base}/beside.xml`,
      '--country',
      'IE',
    ]);
    serve = await startServe(cli, [], { SOURCE_CHECK_SECONDS: '1' });
    await until(
      async () => (guides.seen('/beside.xml').length > 0 ? true : null),
      'the server to start the refresh',
    );
    const beside = await cli.run(['sources', 'refresh', added.id]);
    expect(beside.code, beside.stderr).toBe(0);
    expect(beside.stdout).toMatch(
      /being refreshed by another process \(.+\) right now; not refreshed twice/,
    );
    store = openSqliteStore({ path: String(cli.env['DATABASE_URL']), nowMs: Date.now() });
    const done = await until(async () => {
      const source = await store?.sources.findSource(added.id);
      return source?.lastOutcome === 'ingested' ? source : null;
    }, 'the server to finish');
    expect(done.leaseHolder).toBeNull();
    expect(guides.seen('/beside.xml')).toHaveLength(1);
  });
});
