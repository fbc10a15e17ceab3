import { spawn } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGzip, gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cataloguePathFor } from '../../src/storage/sqlite/catalogue-file.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import {
  itWithoutDatabase,
  ONAIR_BIN,
  openCliSandbox,
  type CliResult,
  type EngineCliSandbox,
} from '../helpers/cli-runner.js';
import { ENGINES } from '../helpers/engines.js';

/**
 * What an operator's walkthrough of bin/onair found: a closed pipe, an interrupted ingest,
 * impossible dates, usage errors, key names, plurals. Real runs of the executable.
 */

let cli: EngineCliSandbox;

beforeAll(async () => {
  cli = await openCliSandbox();
});

afterAll(async () => {
  await cli?.dispose();
});

/** Programmes and channels in the catalogue, read from outside Onair. */
async function catalogueCounts(
  sandbox: EngineCliSandbox = cli,
): Promise<{ programmes: number; channels: number }> {
  const sql =
    'SELECT (SELECT count(*) FROM programmes) AS programmes, (SELECT count(*) FROM channels) AS channels';
  const url = sandbox.env.DATABASE_URL as string;
  if (sandbox.engine === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const row = (await client.query<{ programmes: string; channels: string }>(sql)).rows[0];
      return { programmes: Number(row?.programmes), channels: Number(row?.channels) };
    } finally {
      await client.end();
    }
  }
  const db = new Database(cataloguePathFor(url), { readonly: true });
  try {
    return db.prepare(sql).get() as { programmes: number; channels: number };
  } finally {
    db.close();
  }
}

/** Starts bin/onair; `act` gets the child and its output so far: at the start, then as it arrives. */
function runWatched(
  args: string[],
  act: (child: ReturnType<typeof spawn>, stdout: string) => void,
  sandbox: EngineCliSandbox = cli,
): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ONAIR_BIN, args, { cwd: sandbox.dir, env: sandbox.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      act(child, stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    act(child, '');
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const BIG = fixturePath('corpus/jiotv_in_epg.xml.gz');

/**
 * Writes the first 8 MB of the corpus's largest guide to the child's standard input and never
 * ends it, then sends `signal` once the pipe has taken the bytes: the ingest is mid-read (rows
 * staged, the merge not begun) whatever the machine's speed, as a file still being written or a
 * grabber still running would leave it. (A timer after starting a whole file raced the ingest:
 * a fast machine finished the file first.)
 */
function feedUnfinishedGuide(child: ReturnType<typeof spawn>, signal: NodeJS.Signals): void {
  const part = gunzipSync(readFileSync(BIG)).subarray(0, 8_000_000);
  child.stdin?.write(part, () => setTimeout(() => child.kill(signal), 300));
}

describe('a reader that goes away', () => {
  it('ends the output quietly, and the ingest still finishes', async () => {
    const inputs = ['basic.xml', 'rich.xml', 'unsorted.xml'].map((f) => fixturePath(f));
    // The read side closes after the first summary: every later write meets a closed pipe.
    const result = await runWatched(['ingest', ...inputs], (child, stdout) => {
      if (stdout !== '') child.stdout?.destroy();
    });
    expect(result.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // Nothing lost: the inputs after the closed pipe were ingested too.
    const again = await cli.json<{ ingested: { merge: { programmesUnchanged: number } }[] }>([
      'ingest',
      ...inputs,
    ]);
    expect(again.ingested.map((s) => s.merge.programmesUnchanged > 0)).toEqual([true, true, true]);
  });
});

describe('standard input', () => {
  it('`ingest -` reads a guide piped in, plain or gzip, as XMLTV tools do', async () => {
    const pipedIn = (gzip: boolean) =>
      runWatched(['ingest', '-', '--country', 'IE', '--json'], (child, stdout) => {
        if (stdout !== '' || child.stdin === null || child.stdin.writableEnded) return;
        const file = createReadStream(fixturePath('basic.xml'));
        (gzip ? file.pipe(createGzip()) : file).pipe(child.stdin);
      });
    for (const gzip of [false, true]) {
      const result = await pipedIn(gzip);
      expect(result.code, result.stderr).toBe(0);
      const [summary] = (JSON.parse(result.stdout) as { ingested: Record<string, unknown>[] })
        .ingested;
      expect(summary).toMatchObject({ source: 'standard input', gzip });
      expect(summary?.['programmesStored']).toBeGreaterThan(0);
    }
    // Nothing piped in: the one-line refusal every empty input gets.
    const empty = await runWatched(['ingest', '-'], (child) => child.stdin?.end());
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^onair: error: standard input: line 1: .*empty.*\n$/);
  });
});

// Both engines from here (the postgres project does not run this file): leaving the process
// mid-transaction must roll back on each.
describe.each(ENGINES)('an interrupted ingest on %s', (engine) => {
  let sandbox: EngineCliSandbox;
  beforeAll(async () => {
    sandbox = await openCliSandbox(engine);
  });
  afterAll(async () => {
    await sandbox?.dispose();
  });

  it('SIGINT: exits 130 with one line naming what was and was not ingested; the catalogue is unchanged', async () => {
    const small = fixturePath('basic.xml');
    const after = fixturePath('messy.xml');
    await sandbox.json(['ingest', small]);
    const before = await catalogueCounts(sandbox);
    let fed = false;
    const result = await runWatched(
      ['ingest', small, '-', after],
      (child, stdout) => {
        // The first input's summary is out: standard input is being read now.
        if (!fed && stdout.includes('Ingested')) {
          fed = true;
          feedUnfinishedGuide(child, 'SIGINT');
        }
      },
      sandbox,
    );
    expect(result.stderr).toBe(
      `onair: interrupted: standard input was not ingested; ingested before it: ${small}; not read: ${after}\n`,
    );
    expect(result.code).toBe(130);
    expect(await catalogueCounts(sandbox)).toEqual(before);
  });

  it('SIGTERM: exits 143; the catalogue is unchanged', async () => {
    const before = await catalogueCounts(sandbox);
    let fed = false;
    const result = await runWatched(
      ['ingest', '-', '--json'],
      (child) => {
        if (!fed) {
          fed = true;
          feedUnfinishedGuide(child, 'SIGTERM');
        }
      },
      sandbox,
    );
    expect(result).toEqual({
      code: 143,
      signal: null,
      stdout: '',
      stderr: 'onair: interrupted: standard input was not ingested; the catalogue is unchanged\n',
    });
    expect(await catalogueCounts(sandbox)).toEqual(before);
  });
});

describe('an interrupt during the merge', () => {
  it("waits for the merge, prints the input's summary, then says it was ingested", async () => {
    const sandbox = await openCliSandbox('sqlite');
    try {
      // The schema made first, so the catalogue's WAL grows next only when the merge writes.
      await sandbox.json(['ingest', fixturePath('basic.xml')]);
      const wal = `${cataloguePathFor(sandbox.env.DATABASE_URL as string)}-wal`;
      const walSize = () => (existsSync(wal) ? statSync(wal).size : 0);
      const before = walSize();
      let watching: NodeJS.Timeout | undefined;
      const result = await runWatched(
        ['ingest', BIG],
        (child) => {
          watching ??= setInterval(() => {
            if (walSize() <= before) return;
            clearInterval(watching);
            child.kill('SIGINT');
          }, 1);
        },
        sandbox,
      );
      clearInterval(watching);
      expect(result.stderr).toBe(`onair: interrupted: ${BIG} was ingested\n`);
      expect(result.code).toBe(130);
      expect(result.stdout.startsWith(`Ingested ${BIG} as `), result.stdout).toBe(true);
      expect((await catalogueCounts(sandbox)).programmes).toBeGreaterThan(90_000);
    } finally {
      await sandbox.dispose();
    }
  });
});

describe('dates', () => {
  it('refuses a date that does not exist, as a malformed one, in one line', async () => {
    for (const [args, option, value] of [
      [['accounts', 'create', '--email', 'h1@example.com'], '--access-until <iso>', '2027-02-30'],
      [['accounts', 'create', '--email', 'h1@example.com'], '--verified-at <iso>', '2027-02-30'],
      [['accounts', 'grant', '--email', 'h1@example.com'], '--until <iso>', '2027-02-31'],
      [['accounts', 'create', '--email', 'h1@example.com'], '--access-until <iso>', '2027-04-31'],
      [
        ['accounts', 'create', '--email', 'h1@example.com'],
        '--access-until <iso>',
        '2027-01-01T24:00Z',
      ],
    ] as const) {
      const flag = option.split(' ')[0] as string;
      const result = await cli.run([...args, flag, value]);
      const command = args.slice(0, 2).join(' ');
      expect(result, value).toEqual({
        code: 2,
        stdout: '',
        stderr: `onair: error: option '${option}' argument '${value}' is invalid. "${value}" is not a valid date (see bin/onair ${command} --help)\n`,
      });
    }
    // Nothing was created along the way.
    expect((await cli.run(['accounts', 'show', '--email', 'h1@example.com'])).code).toBe(1);
    // A leap day exists.
    const leap = await cli.json<{ accessUntil: string }>([
      ...['accounts', 'create', '--email', 'leap@example.com', '--access-until', '2028-02-29'],
    ]);
    expect(leap.accessUntil).toBe('2028-02-29T00:00:00.000Z');
  });

  it('refuses a verification in the future', async () => {
    const result = await cli.run([
      ...['accounts', 'create', '--email', 'future@example.com', '--verified-at', '2099-01-01'],
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^onair: error: --verified-at 2099-01-01T00:00:00\.000Z is in the future: give a time up to now \(\S+\), or --verified for now\n$/,
    );
    expect((await cli.run(['accounts', 'show', '--email', 'future@example.com'])).code).toBe(1);
  });
});

describe('usage errors', () => {
  itWithoutDatabase('are one line naming the command to ask for help, exit code 2', async () => {
    expect(await cli.run(['ingest', 'x.xml', '--assume-offset', '0800'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `onair: error: option '--assume-offset <+HHMM>' argument '0800' is invalid. "0800" is not an offset like +0530 (see bin/onair ingest --help)\n`,
    });
    expect(await cli.run(['accounts', 'grant', '--email', 'a@example.com'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `onair: error: required option '--until <iso>' not specified (see bin/onair accounts grant --help)\n`,
    });
    expect(await cli.run(['nosuch'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `onair: error: unknown command 'nosuch' (see bin/onair --help)\n`,
    });
    const typo = await cli.run(['accounts', 'creat']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^onair: error: unknown command 'creat' \(Did you mean create\?\) \(see bin\/onair accounts --help\)\n$/,
    );
  });

  itWithoutDatabase('leave --help and --version as they were', async () => {
    const help = await cli.run(['keys', 'create', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: onair keys create \[options\]/);
    expect(await cli.run(['--version'])).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('key names', () => {
  it('refuses an empty name and says when a long one was cut, as the web page cuts it', async () => {
    await cli.json(['accounts', 'create', '--email', 'keys@example.com', '--verified']);
    for (const name of ['', '   ']) {
      expect(
        await cli.run(['keys', 'create', '--email', 'keys@example.com', '--name', name]),
      ).toEqual({
        code: 2,
        stdout: '',
        stderr: `onair: error: option '--name <name>' argument '${name}' is invalid. give the key a name, e.g. production (see bin/onair keys create --help)\n`,
      });
    }
    const long = await cli.run([
      ...['keys', 'create', '--email', 'keys@example.com', '--name', 'k'.repeat(101), '--json'],
    ]);
    expect(long.code).toBe(0);
    expect(long.stderr).toBe('onair: note: the key name was cut to its first 100 characters\n');
    expect((JSON.parse(long.stdout) as { name: string }).name).toBe('k'.repeat(100));
    const exact = await cli.run([
      ...['keys', 'create', '--email', 'keys@example.com', '--name', 'k'.repeat(100), '--json'],
    ]);
    expect(exact).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('plurals', () => {
  it('an ingest of one channel, one programme and one warning says so in the singular', async () => {
    const file = join(cli.dir, 'one.xml');
    writeFileSync(
      file,
      `<?xml version="1.0" encoding="UTF-8"?>
<tv>
  <channel id="one.ie"><display-name>One</display-name></channel>
  <programme start="20260822190000 +0000" stop="20260822180000 +0000" channel="one.ie">
    <title>Backwards</title>
  </programme>
</tv>
`,
    );
    const result = await cli.run(['ingest', file, '--country', 'IE']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '\n  1 channel (0 without programmes), 1 programme read, 1 stored\n',
    );
    expect(result.stdout).toMatch(/\n {2}1 warning:\n {4}line \d+: /);
  });
});
