import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithoutDatabase, openCliSandbox, type EngineCliSandbox } from '../helpers/cli-runner.js';
import { conditionalGuide, startGuideServer, type GuideServer } from '../helpers/guide-server.js';

const HOUR = 3_600_000;

// On the vitest project's engine: a SQLite file, or a fresh PostgreSQL database.
let cli: EngineCliSandbox;
let server: GuideServer;

beforeAll(async () => {
  cli = await openCliSandbox();
  server = await startGuideServer();
});
afterAll(async () => {
  await cli.dispose();
  await server.close();
});

const xmltvTime = (ms: number, offset = ' +0000') =>
  new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14) + offset;

/** Two channels with `hours` hourly programmes from `fromMs` (now by default). */
function guide(title: string, fromMs = Date.now() - HOUR, hours = 48): string {
  const rows: string[] = [];
  for (const channel of ['news.ie', 'film.ie']) {
    for (let h = 0; h < hours; h++) {
      const start = fromMs + h * HOUR;
      rows.push(
        `<programme start="${xmltvTime(start)}" stop="${xmltvTime(start + HOUR)}" channel="${channel}"><title>${title} ${h}</title></programme>`,
      );
    }
  }
  return `<tv>
<channel id="news.ie"><display-name>News Channel</display-name></channel>
<channel id="film.ie"><display-name>Film Channel</display-name></channel>
${rows.join('\n')}
</tv>
`;
}

interface SourceJson {
  id: string;
  location: string;
  country: string;
  every: string;
  assumeOffset: string;
  lastAttemptAt: string | null;
  lastSuccessAt: string | null;
  lastIngestAt: string | null;
  lastOutcome: string | null;
  lastStatus: number | null;
  lastError: string | null;
  etag: string | null;
  lastModified: string | null;
  channels: number | null;
  programmes: number | null;
  scheduleEndsAt: string | null;
  failures: number;
  nextRunAt: string;
  flags: string[];
}

interface ChannelJson {
  id: string;
  xmltvId: string;
  name: string;
  country: string;
  needsReview: boolean;
  nameFixed: boolean;
  countryFixed: boolean;
  reviewedAt: string | null;
}

describe('bin/onair sources', () => {
  itWithoutDatabase('has help naming every sub-command', async () => {
    const sources = await cli.run(['sources', '--help']);
    expect(sources.code).toBe(0);
    for (const sub of ['add', 'list', 'remove', 'refresh'])
      expect(sources.stdout).toContain(`  ${sub} `);
    const channels = await cli.run(['channels', '--help']);
    expect(channels.code).toBe(0);
    for (const sub of ['list', 'set', 'stale']) expect(channels.stdout).toContain(`  ${sub} `);
  });

  it('adds a URL, refreshes it (then conditionally), lists its state and removes it', async () => {
    let body = guide('Show');
    server.on(
      '/ie.xml',
      conditionalGuide(() => ({
        body: Buffer.from(body),
        etag: '"one"',
        lastModified: 'Mon, 23 Nov 2026 06:00:00 GMT',
      })),
    );
    const added = await cli.json<SourceJson>([
      'sources',
      'add',
      `${server.base}/ie.xml`,
      '--country',
      'ie',
      '--every',
      '2h',
      '--assume-offset',
      '+0100',
    ]);
    expect(added).toMatchObject({
      location: `${server.base}/ie.xml`,
      country: 'IE',
      every: '2h',
      assumeOffset: '+0100',
      lastAttemptAt: null,
      flags: [],
    });

    const first = await cli.run(['sources', 'refresh', added.id]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${added.id} (${server.base}/ie.xml): ingested (HTTP 200)`);
    expect(first.stdout).toContain('2 channels, 96 programmes: +96 added');

    const second = await cli.json<{ outcome: string; status: number }[]>(['sources', 'refresh']);
    expect(second).toEqual([
      expect.objectContaining({ sourceId: added.id, outcome: 'not-modified', status: 304 }),
    ]);
    expect(server.seen('/ie.xml').at(-1)?.ifNoneMatch).toBe('"one"');

    const [listed] = await cli.json<SourceJson[]>(['sources', 'list']);
    expect(listed).toMatchObject({
      id: added.id,
      lastOutcome: 'not-modified',
      lastStatus: 304,
      lastError: null,
      etag: '"one"',
      lastModified: 'Mon, 23 Nov 2026 06:00:00 GMT',
      channels: 2,
      programmes: 96,
      failures: 0,
      flags: [],
    });
    // Next run: the interval after the refresh ended.
    const wait = Date.parse(listed?.nextRunAt ?? '') - Date.parse(listed?.lastSuccessAt ?? '');
    expect(wait).toBeGreaterThanOrEqual(2 * HOUR);
    expect(wait).toBeLessThan(2 * HOUR + 60_000);
    const text = await cli.run(['sources', 'list']);
    expect(text.stdout).toContain('last attempt');
    expect(text.stdout).toContain('HTTP 304');
    expect(text.stdout).toContain('ETag "one", Last-Modified Mon, 23 Nov 2026 06:00:00 GMT');
    expect(text.stdout).toContain('2 channels, 96 programmes; schedule ends');
    expect(text.stdout).toContain('next run');

    // A broken guide: exit 1, one line naming the source and the problem, nothing changed.
    body = '<tv><channel id="news.ie">';
    server.on('/ie.xml', (_req, res) => res.end(body));
    const broken = await cli.run(['sources', 'refresh', added.id]);
    expect(broken.code).toBe(1);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).toMatch(
      new RegExp(
        `^onair: error: ${added.id} .*: failed \\(HTTP 200\\): line \\d+: .*; the catalogue is unchanged by it`,
      ),
    );
    const channels = await cli.json<ChannelJson[]>(['channels', 'list', '--country', 'IE']);
    expect(channels.map((c) => c.name)).toEqual(['Film Channel', 'News Channel']);
    const [failed] = await cli.json<SourceJson[]>(['sources', 'list']);
    expect(failed).toMatchObject({
      lastOutcome: 'failed',
      failures: 1,
      programmes: 96,
      etag: '"one"',
    });
    expect(failed?.flags).toEqual(['last-refresh-failed']);
    expect((await cli.run(['sources', 'list'])).stdout).toContain('(1 failure in a row)');
    expect((await cli.run(['sources', 'list'])).stdout).toContain(
      '! its last refresh failed: line',
    );
    // Refreshing every source: the same one line, exit 1, and one more failure in a row.
    const all = await cli.run(['sources', 'refresh']);
    expect(all.code).toBe(1);
    expect(all.stderr.trim().split('\n')).toEqual([broken.stderr.trim()]);
    expect((await cli.run(['sources', 'list'])).stdout).toContain('(2 failures in a row)');

    const removed = await cli.run(['sources', 'remove', `${server.base}/ie.xml`]);
    expect(removed.stdout).toContain(`Removed source ${added.id}`);
    expect(await cli.json(['sources', 'list'])).toEqual([]);
    // What it ingested stays.
    expect((await cli.json<ChannelJson[]>(['channels', 'list'])).length).toBe(2);
  });

  it('adds a file by a relative path and flags a guide that is all in the past', async () => {
    writeFileSync(join(cli.dir, 'old.xml'), guide('Old', Date.now() - 30 * 24 * HOUR, 24));
    const added = await cli.json<SourceJson>(['sources', 'add', 'old.xml', '--country', 'GB']);
    expect(added.location).toBe(join(cli.dir, 'old.xml'));
    const refreshed = await cli.run(['sources', 'refresh', added.id]);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toMatch(/ingested as [0-9a-f-]{36}/);
    expect(refreshed.stdout).toMatch(/! its schedule ended at \d{4}-/);
    const again = await cli.run(['sources', 'refresh', added.id]);
    expect(again.stdout).toContain('not modified; nothing re-ingested');
    const [listed] = (await cli.json<SourceJson[]>(['sources', 'list'])).filter(
      (s) => s.id === added.id,
    );
    expect(listed?.flags).toEqual(['schedule-ended']);
    expect(listed?.lastStatus).toBeNull();
    await cli.run(['sources', 'remove', added.id]);
  });

  // Exit 2 is commander's, before any command opens the database.
  itWithoutDatabase('refuses bad options with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['sources', 'add', 'http://example.com/g.xml'], /--country/],
      [
        ['sources', 'add', 'http://example.com/g.xml', '--country', 'IE', '--every', 'often'],
        /not a duration like 30m, 6h or 1d/,
      ],
      [
        ['sources', 'add', 'http://example.com/g.xml', '--country', 'IE', '--every', '10s'],
        /not between 1m and 30d/,
      ],
      [
        ['sources', 'add', 'http://example.com/g.xml', '--country', 'IE', '--assume-offset', '8'],
        /offset like \+0530/,
      ],
      [['channels', 'set', 'news.ie', '--country', 'I_E'], /not a country code/],
      [['channels', 'stale', '--within', 'soon'], /not a duration/],
    ];
    for (const [args, message] of cases) {
      const result = await cli.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('refuses bad input with one line and exit 1 (2 for a usage error)', async () => {
    const cases: [string[], RegExp][] = [
      [['sources', 'add', 'missing.xml', '--country', 'IE'], /no such file: .*missing\.xml/],
      [
        ['sources', 'add', 'ftp://example.com/g.xml', '--country', 'IE'],
        /^onair: error: unsupported URL scheme "ftp:": give an http\(s\) URL or a file path$/m,
      ],
      [['sources', 'remove', 'nope'], /no source with id or location nope/],
      [['sources', 'refresh', 'nope'], /no source with id or location nope/],
      [['channels', 'set', 'nope', '--country', 'IE'], /no channel with id or XMLTV id nope/],
    ];
    for (const [args, message] of cases) {
      const result = await cli.run(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    // Nothing to change is a usage error, as a missing option is.
    expect(await cli.run(['channels', 'set', 'news.ie'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'onair: error: nothing to change: give --country, --name or --reviewed (see bin/onair channels set --help)\n',
    });
    await cli.json(['sources', 'add', 'http://example.com/g.xml', '--country', 'IE']);
    const duplicate = await cli.run([
      'sources',
      'add',
      'http://example.com/g.xml',
      '--country',
      'GB',
    ]);
    expect(duplicate).toMatchObject({
      code: 1,
      stderr: 'onair: error: http://example.com/g.xml is already a source\n',
    });
    await cli.run(['sources', 'remove', 'http://example.com/g.xml']);
  });

  it('shows a URL without its credentials or query in every output, yet refreshes with them', async () => {
    const password = 's3cretPW';
    const token = 'QTOKEN123';
    const basic = Buffer.from(`user:${password}`).toString('base64');
    const now = Date.now();
    const body = Buffer.from(`<tv>
<channel id="private.ie"><display-name>Private</display-name></channel>
<programme start="${xmltvTime(now)}" stop="${xmltvTime(now + HOUR)}" channel="private.ie"><title>Members</title></programme>
</tv>
`);
    const guideFile = conditionalGuide(() => ({
      body,
      etag: '"private"',
      lastModified: 'Mon, 23 Nov 2026 06:00:00 GMT',
    }));
    // Answers only with both secrets: a refresh that works proves the store kept them.
    server.on('/private.xml', (req, res) => {
      if (req.headers.authorization !== `Basic ${basic}` || !req.url?.endsWith(`?token=${token}`)) {
        res.writeHead(401);
        res.end();
        return;
      }
      guideFile(req, res);
    });
    const url = `${server.base.replace('http://', `http://user:${password}@`)}/private.xml?token=${token}`;
    const shown = `${server.base}/private.xml`;
    const outputs: string[] = [];
    const run = async (args: string[]) => {
      const result = await cli.run(args);
      outputs.push(result.stdout, result.stderr);
      return result;
    };

    const added = await run(['sources', 'add', url, '--country', 'IE']);
    expect(added.code, added.stderr).toBe(0);
    const id = /^Added source ([0-9a-f-]{36}): /.exec(added.stdout)?.[1] ?? '';
    expect(added.stdout).toContain(`Added source ${id}: ${shown}\n`);
    const duplicate = await run(['sources', 'add', url, '--country', 'IE', '--json']);
    expect(duplicate.stderr).toBe(`onair: error: ${shown} is already a source\n`);

    const refreshed = await run(['sources', 'refresh', id]);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toContain(`${id} (${shown}): ingested (HTTP 200)`);
    const again = await run(['sources', 'refresh', id, '--json']);
    expect(JSON.parse(again.stdout)).toEqual([
      expect.objectContaining({ sourceId: id, location: shown, outcome: 'not-modified' }),
    ]);
    const text = await run(['sources', 'refresh', id]);
    expect(text.stdout).toContain(`${id} (${shown}): not modified (HTTP 304)`);

    const list = await run(['sources', 'list']);
    expect(list.stdout).toContain(`${id}  ${shown}\n`);
    const listJson = await run(['sources', 'list', '--json']);
    const listed = (JSON.parse(listJson.stdout) as SourceJson[]).find((s) => s.id === id);
    expect(listed).toMatchObject({ location: shown, lastStatus: 304 });

    // Found by the URL as added; a wrong one is named without its secrets.
    const missing = await run(['sources', 'remove', `${url}x`]);
    expect(missing.stderr).toBe(`onair: error: no source with id or location ${shown}\n`);
    // Or as listed, copied from `sources list`, while no other source shows the same.
    const byShown = await run(['sources', 'refresh', shown]);
    expect(byShown.stdout).toContain(`${id} (${shown}): not modified (HTTP 304)`);
    const other = await run(['sources', 'add', `${url}2`, '--country', 'IE']);
    const otherId = /^Added source ([0-9a-f-]{36}): /.exec(other.stdout)?.[1] ?? '';
    const ambiguous = await run(['sources', 'remove', shown]);
    expect(ambiguous).toMatchObject({
      code: 1,
      stderr: `onair: error: 2 sources show as ${shown}: name one by its id (${[id, otherId].sort().join(', ')})\n`,
    });
    expect((await run(['sources', 'remove', otherId])).code).toBe(0);
    const removed = await run(['sources', 'remove', url, '--json']);
    expect(JSON.parse(removed.stdout)).toEqual({ removed: id, location: shown });

    // A URL of another scheme, or one that does not parse, is refused without its secrets.
    const ftp = await run(['sources', 'add', `ftp://u:${password}@host/x.xml`, '--country', 'GB']);
    expect(ftp.stderr).toBe(
      'onair: error: unsupported URL scheme "ftp:": give an http(s) URL or a file path\n',
    );
    const typo = await run([
      'sources',
      'add',
      `htps://u:${password}@host/x.xml`,
      '--country',
      'GB',
    ]);
    expect(typo.stderr).toContain('unsupported URL scheme "htps:"');
    const badPort = `http://u:${password}@host:99999/x.xml?token=${token}`;
    const bad = await run(['sources', 'add', badPort, '--country', 'GB']);
    expect(bad.stderr).toBe('onair: error: "http://host:99999/x.xml" is not a valid URL\n');

    expect(outputs.join('\n')).toContain(shown);
    for (const output of outputs) {
      for (const secret of [password, token, basic]) expect(output).not.toContain(secret);
    }
  });
});

describe('bin/onair channels', () => {
  it('lists channels to review, fixes them, and a later ingest keeps the fix', async () => {
    const file = join(cli.dir, 'mixed.xml');
    writeFileSync(
      file,
      `<tv>
<channel id="one.uk"><display-name>One</display-name></channel>
<channel id="plain"><display-name>Plain</display-name></channel>
<programme start="${xmltvTime(Date.now() - 2 * HOUR)}" stop="${xmltvTime(Date.now() - HOUR)}" channel="one.uk"><title>Done</title></programme>
<programme start="${xmltvTime(Date.now() + HOUR)}" stop="${xmltvTime(Date.now() + 2 * HOUR)}" channel="plain"><title>Soon</title></programme>
</tv>`,
    );
    const ingested = await cli.run(['ingest', file]);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toMatch(/stale soon: the schedule ends within 24 hours/);
    // Both channels' countries were inferred: the summary says so, and how to place them.
    expect(ingested.stdout).toContain(
      '2 channels need review (country inferred from the XMLTV id, or ZZ): list with `bin/onair channels list --needs-review`',
    );

    const review = await cli.json<ChannelJson[]>(['channels', 'list', '--needs-review']);
    expect(review.map((c) => [c.xmltvId, c.country])).toEqual([
      ['one.uk', 'UK'],
      ['plain', 'ZZ'],
    ]);
    const text = await cli.run(['channels', 'list', '--needs-review']);
    expect(text.stdout).toMatch(/ UK {2}"One" {2}\(XMLTV id "one\.uk"\) {2}\[NEEDS REVIEW\]/);

    const fixed = await cli.json<ChannelJson>([
      'channels',
      'set',
      'one.uk',
      '--country',
      'gb',
      '--name',
      'BBC One',
    ]);
    expect(fixed).toMatchObject({
      country: 'GB',
      name: 'BBC One',
      needsReview: false,
      nameFixed: true,
      countryFixed: true,
    });
    const plain = review.find((c) => c.xmltvId === 'plain');
    const reviewed = await cli.json<ChannelJson>([
      'channels',
      'set',
      plain?.id ?? '',
      '--reviewed',
    ]);
    expect(reviewed).toMatchObject({ country: 'ZZ', needsReview: false, countryFixed: true });
    expect(reviewed.reviewedAt).not.toBeNull();
    expect(await cli.json(['channels', 'list', '--needs-review'])).toEqual([]);

    // The same guide again, now with a country for every channel: the fixes stay, and no
    // channel waits for review.
    const again = await cli.run(['ingest', file, '--country', 'IE']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('need review');
    const after = await cli.json<ChannelJson[]>(['channels', 'list']);
    expect(
      after
        .filter((c) => ['one.uk', 'plain'].includes(c.xmltvId))
        .map((c) => [c.xmltvId, c.name, c.country]),
    ).toEqual([
      ['one.uk', 'BBC One', 'GB'],
      ['plain', 'Plain', 'ZZ'],
    ]);

    // Schedules that ran out: one.uk's ended an hour ago; plain's ends within the day.
    const stale = await cli.json<{ xmltvId: string; scheduleEndsAt: string }[]>([
      'channels',
      'stale',
    ]);
    expect(stale.map((c) => c.xmltvId)).toContain('one.uk');
    expect(stale.map((c) => c.xmltvId)).not.toContain('plain');
    const soon = await cli.json<{ xmltvId: string }[]>([
      'channels',
      'stale',
      '--within',
      '24h',
      '--country',
      'ZZ',
    ]);
    expect(soon.map((c) => c.xmltvId)).toEqual(['plain']);
    const staleText = await cli.run(['channels', 'stale', '--country', 'GB']);
    expect(staleText.stdout).toMatch(/ GB {2}"BBC One" {2}ended \d{4}-.* \(1 programme\)/);
  });
});
