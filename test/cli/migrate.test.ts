import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../helpers/cli-runner.js';
import { ENGINES, freshPostgresDatabase } from '../helpers/engines.js';

/**
 * `bin/onair migrate`, and a refused DATABASE_URL or REDIS_URL, name the database without its
 * password, whether the URL holds it in its userinfo or its query. The file picks its engine
 * itself: the PostgreSQL case runs whenever the run has PostgreSQL.
 */

const PASSWORD = 'RightPw123';

let cli: CliSandbox;
beforeAll(() => {
  cli = createCliSandbox();
});
afterAll(() => {
  cli.dispose();
});

describe('bin/onair migrate and database URLs', () => {
  it.runIf(ENGINES.includes('postgres'))(
    'shows a PostgreSQL URL with its password masked, in the query or the userinfo',
    async () => {
      const database = await freshPostgresDatabase();
      try {
        // The local server trusts its clients: the password is sent, and ignored.
        const inQuery = `${database.url}?password=${PASSWORD}&application_name=onair-test`;
        const shownQuery = `${database.url}?password=***&application_name=onair-test`;
        const json = await cli.run(['migrate', '--json'], { DATABASE_URL: inQuery });
        expect(json.code, json.stderr).toBe(0);
        const result = JSON.parse(json.stdout) as { database: string; version: number };
        expect(result.database).toBe(shownQuery);
        const text = await cli.run(['migrate'], { DATABASE_URL: inQuery });
        expect(text.stdout).toBe(
          `Schema of ${shownQuery} is up to date (version ${result.version}).\n`,
        );

        const url = new URL(database.url);
        url.password = PASSWORD;
        const shownUserinfo = url.href.replace(`:${PASSWORD}@`, ':***@');
        const inUserinfo = await cli.run(['migrate', '--json'], { DATABASE_URL: url.href });
        expect(inUserinfo.code, inUserinfo.stderr).toBe(0);
        expect(JSON.parse(inUserinfo.stdout)).toMatchObject({ database: shownUserinfo });

        for (const output of [json, text, inUserinfo]) {
          expect(output.stdout + output.stderr).not.toContain(PASSWORD);
        }
      } finally {
        await database.drop();
      }
    },
  );

  it('names the database it cannot open and DATABASE_URL, without the password', async () => {
    const unreachable = await cli.run(['channels', 'list'], {
      DATABASE_URL: `postgres://onair:${PASSWORD}@127.0.0.1:1/onair`,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^onair: error: cannot open the PostgreSQL database postgres:\/\/onair:\*\*\*@127\.0\.0\.1:1\/onair \(DATABASE_URL\): .*ECONNREFUSED.*\n$/,
    );
    expect(unreachable.stdout + unreachable.stderr).not.toContain(PASSWORD);

    // A file under a file: its directory can never be made.
    const nowhere = await cli.run(['accounts', 'list'], { DATABASE_URL: '/dev/null/onair.db' });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(
      /^onair: error: cannot open the SQLite database \/dev\/null\/onair\.db \(DATABASE_URL\): .*\n$/,
    );
  });

  it('quotes a refused DATABASE_URL or REDIS_URL without its password', async () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [
        { DATABASE_URL: `postgress://onair:${PASSWORD}@db.internal:5432/onair` },
        'DATABASE_URL must be a SQLite file path, sqlite:PATH or postgres://…, got "postgress://onair:***@db.internal:5432/onair"',
      ],
      [
        { DATABASE_URL: `mysql://onair@db.internal/onair?password=${PASSWORD}` },
        'DATABASE_URL must be a SQLite file path, sqlite:PATH or postgres://…, got "mysql://onair@db.internal/onair?password=***"',
      ],
      [
        { REDIS_URL: `http://:${PASSWORD}@cache:6379` },
        'REDIS_URL must start with redis:// or rediss://, got "http://:***@cache:6379"',
      ],
    ];
    for (const [env, message] of cases) {
      const result = await cli.run(['migrate'], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`onair: configuration error: ${message}\n`);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    }
  });
});
