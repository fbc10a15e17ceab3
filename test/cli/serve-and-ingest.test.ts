import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  itWithoutDatabase,
  openCliSandbox,
  startServe,
  type EngineCliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { outboxFiles } from '../helpers/outbox.js';

// On the vitest project's engine: a SQLite file, or a fresh PostgreSQL database.
let cli: EngineCliSandbox;
let server: ServeProcess | null = null;

beforeEach(async () => {
  cli = await openCliSandbox();
});

afterEach(async () => {
  await server?.stop();
  server = null;
  await cli.dispose();
});

const get = async (url: string, key?: string) => {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** Resolves at the start of the next whole second, when a fixed 1-second rate window opens. */
function nextRateWindow(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
}

function guide(title: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tv SYSTEM "xmltv.dtd">
<tv>
  <channel id="rte1.ie"><display-name>RTÉ One</display-name><icon src="https://img.example/rte1.png"/></channel>
  <programme start="20260822190000 +0100" stop="20260822200000 +0100" channel="rte1.ie">
    <title>${title}</title><desc>Evening news.</desc><category>News</category><category>Current affairs</category>
  </programme>
</tv>
`;
}

describe('npm start: serve --demo', () => {
  it('loads the demo catalogue on an empty database and prints a working curl line', async () => {
    server = await startServe(cli, ['--demo']);
    const curl = /curl -H "Authorization: Bearer (onair_\w+)" (http:\/\/\S+)/.exec(server.banner);
    expect(curl, server.banner).not.toBeNull();
    const [, key, url] = curl as unknown as [string, string, string];
    // The first line says where it listens and gives the key.
    expect(server.banner.split('\n')[0]).toBe(
      `Onair is serving ${server.url} — your demo API key (shown only now): ${key}`,
    );
    const countries = await get(url, key);
    expect(countries.status).toBe(200);
    expect((countries.body.countries as unknown[]).length).toBeGreaterThan(3);

    const channels = await get(`${server.url}/api/v1/countries/FR/channels`, key);
    const first = (channels.body.channels as { id: string; needsReview: boolean }[])[0];
    expect(first?.needsReview).toBe(false);
    const today = await get(
      `${server.url}/api/v1/channels/${first?.id}/programmes?days=today`,
      key,
    );
    expect((today.body.programmes as unknown[]).length).toBeGreaterThan(5);
    // The demo account has the default 3 requests per second: wait for a fresh window.
    await nextRateWindow();
    const tomorrow = await get(
      `${server.url}/api/v1/channels/${first?.id}/programmes?days=tomorrow`,
      key,
    );
    expect((tomorrow.body.programmes as unknown[]).length).toBeGreaterThan(5);

    // A second start finds a catalogue and adds nothing.
    await server.stop();
    server = await startServe(cli, ['--demo']);
    expect(server.banner).not.toMatch(/onair_/);
    // The command for another key names this server's database, which is not the usual one; a
    // PostgreSQL URL is not shown (it may hold a password).
    const command = 'bin/onair keys create --email demo@onair.local';
    const path = cli.env.DATABASE_URL as string;
    expect(server.banner.split('\n')[0]).toBe(
      `Onair is serving ${server.url} — a new API key for the demo account: ${
        cli.engine === 'postgres'
          ? `${command} (with this server's DATABASE_URL)`
          : `DATABASE_URL=${path} ${command}`
      }`,
    );
    // Run as printed, it makes a key that works.
    const made = await cli.run(['keys', 'create', '--email', 'demo@onair.local', '--json'], {
      DATABASE_URL: path,
    });
    const { key: another } = JSON.parse(made.stdout) as { key: string };
    await nextRateWindow();
    expect((await get(`${server.url}/api/v1/countries`, another)).status).toBe(200);
    const again = await get(`${server.url}/api/v1/countries`, key);
    expect(again.body).toEqual(countries.body);
    // The same day: the demo as it was (test/ingest/demo-start.test.ts moves one days later).
    expect(server.banner.split('\n')[1]).toMatch(
      /^Demo data already loaded; account demo@onair\.local \(sign in at /,
    );

    // With a real guide beside the demo, a start leaves the catalogue as it is, and says so.
    await server.stop();
    const file = join(cli.dir, 'guide.xml');
    writeFileSync(file, guide('Six One'));
    expect((await cli.run(['ingest', file, '--country', 'ie'])).code).toBe(0);
    server = await startServe(cli, ['--demo']);
    expect(server.banner.split('\n')[1]).toMatch(
      /^The catalogue holds more than the demo, so it is left as it is; account demo@onair\.local/,
    );
  });

  it('plain serve never adds demo data', async () => {
    await cli.json(['accounts', 'create', '--email', 'ops@example.com', '--verified']);
    const { key } = await cli.json<{ key: string }>([
      'keys',
      'create',
      '--email',
      'ops@example.com',
    ]);
    server = await startServe(cli);
    expect(server.banner).not.toMatch(/demo/i);
    expect(server.banner.split('\n')[0]).toBe(
      `Onair is serving ${server.url} — for an API key, sign in at ${server.url}/signin`,
    );
    expect((await get(`${server.url}/api/v1/countries`, key)).body).toEqual({ countries: [] });
  });

  it('serves the account pages; without SMTP the sign-in link lands in data/outbox with the real port', async () => {
    server = await startServe(cli);
    const outbox = join(cli.dir, 'outbox');
    expect(server.banner).toContain(`sign in at ${server.url}/signin`);
    expect(server.banner).toContain(`Sign-in mail is written to ${outbox}`);
    const res = await fetch(`${server.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: 'email=walk-in%40example.com',
    });
    expect(res.status).toBe(200);
    await expect.poll(() => outboxFiles(outbox)).toHaveLength(1);
    const mail = await simpleParser(readFileSync(join(outbox, outboxFiles(outbox)[0] ?? '')));
    const link = new RegExp(`^${server.url}/signin/confirm\\?token=[\\w-]{43}$`, 'm');
    expect(mail.text).toMatch(link);
  });
});

describe('operator flow through bin/onair', () => {
  it('ingest → account → key → serve → revoke, across processes', async () => {
    const file = join(cli.dir, 'guide.xml');
    writeFileSync(file, guide('Six One'));
    const ingest = await cli.json<{
      ingested: { programmesStored: number; durationMs: number; mergeMs: number }[];
    }>(['ingest', file, '--country', 'ie']);
    expect(ingest.ingested[0]?.programmesStored).toBe(1);
    // Where the time went: the merge is part of the whole.
    const { durationMs, mergeMs } = ingest.ingested[0] ?? { durationMs: -1, mergeMs: -1 };
    expect(Number.isInteger(mergeMs) && mergeMs >= 0).toBe(true);
    expect(durationMs).toBeGreaterThanOrEqual(mergeMs);
    // The same on a terminal, in seconds; the file again changes nothing.
    const again = await cli.run(['ingest', file, '--country', 'ie']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('catalogue: +0 added, 0 updated, 1 unchanged, 0 removed\n');
    // Another country re-homes the guide's channel: the line says so, not only --json.
    const moved = await cli.run(['ingest', file, '--country', 'gb']);
    expect(moved.stdout).toContain(
      'catalogue: +0 added, 0 updated, 1 unchanged, 0 removed; channels +0 added, 1 updated\n',
    );
    expect((await cli.run(['ingest', file, '--country', 'ie'])).stdout).toContain(
      'channels +0 added, 1 updated\n',
    );
    const took = /\n {2}took (\d+\.\d\d) s: read (\d+\.\d\d) s, merged (\d+\.\d\d) s\n/.exec(
      again.stdout,
    );
    expect(took, again.stdout).not.toBeNull();
    const [total, read, merged] = (took ?? []).slice(1).map(Number);
    expect(Math.abs((read ?? 0) + (merged ?? 0) - (total ?? -1))).toBeLessThanOrEqual(0.011);
    await cli.json(['accounts', 'create', '--email', 'cust@example.com', '--verified']);
    const created = await cli.json<{ id: string; key: string }>([
      'keys',
      'create',
      '--email',
      'cust@example.com',
    ]);

    server = await startServe(cli);
    const { key } = created;
    expect((await get(`${server.url}/api/v1/countries`, key)).body).toEqual({
      countries: [{ country: 'IE', channelCount: 1 }],
    });
    const search = await get(`${server.url}/api/v1/channels/search?q=rte`, key);
    const channel = (search.body.results as { channelId: string; name: string; icon: string }[])[0];
    expect(channel).toMatchObject({ name: 'RTÉ One', icon: 'https://img.example/rte1.png' });
    const all = await get(
      `${server.url}/api/v1/channels/${channel?.channelId}/programmes?all=1`,
      key,
    );
    expect(all.body.programmes).toEqual([
      expect.objectContaining({
        start: '20260822180000 +0000',
        stop: '20260822190000 +0000',
        title: 'Six One',
        desc: 'Evening news.',
        category: 'News, Current affairs',
        needsReview: false,
      }),
    ]);

    // Ingest while serving: the server sees the new catalogue.
    writeFileSync(file, guide('Six One News'));
    await cli.json(['ingest', file, '--country', 'IE']);
    await nextRateWindow();
    const updated = await get(
      `${server.url}/api/v1/channels/${channel?.channelId}/programmes?all=1`,
      key,
    );
    expect((updated.body.programmes as { title: string }[])[0]?.title).toBe('Six One News');

    await cli.json(['keys', 'revoke', '--id', created.id]);
    const refused = await get(`${server.url}/api/v1/countries`, key);
    expect(refused).toEqual({
      status: 401,
      body: { error: expect.any(String), code: 'UNAUTHORIZED' },
    });
  });

  it('a malformed guide fails with the line named, exit 1, and the catalogue unchanged', async () => {
    const good = join(cli.dir, 'good.xml');
    writeFileSync(good, guide('Six One'));
    await cli.json(['ingest', good, '--country', 'IE']);
    const bad = join(cli.dir, 'bad.xml');
    writeFileSync(bad, guide('Broken').replace('<title>Broken</title>', '<title>Broken</titel>'));
    const result = await cli.run(['ingest', bad, '--country', 'IE']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/line 6/);

    await cli.json(['accounts', 'create', '--email', 'cust@example.com', '--verified']);
    const { key } = await cli.json<{ key: string }>([
      'keys',
      'create',
      '--email',
      'cust@example.com',
    ]);
    server = await startServe(cli);
    const search = await get(`${server.url}/api/v1/channels/search?q=rte`, key);
    const id = (search.body.results as { channelId: string }[])[0]?.channelId;
    const all = await get(`${server.url}/api/v1/channels/${id}/programmes?all=1`, key);
    expect((all.body.programmes as { title: string }[]).map((p) => p.title)).toEqual(['Six One']);
  });

  it('--check reads a guide as an ingest would and writes nothing to the catalogue', async () => {
    const file = join(cli.dir, 'check.xml');
    writeFileSync(
      file,
      guide('Six One').replace(
        '</tv>',
        '<programme start="20260822190000 +0100" channel="rte1.ie"><title>Again</title></programme>\n</tv>',
      ),
    );
    const checked = await cli.run(['ingest', '--check', file, '--country', 'IE']);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain(
      `Checked ${file}: it reads as below; nothing was written to the catalogue`,
    );
    expect(checked.stdout).toContain('2 programmes read, 1 to store');
    expect(checked.stdout).toMatch(/collapsed duplicates 0 exact \+ 1 conflicting/);
    expect(checked.stdout).toMatch(/has a different programme with the same start/);
    expect(checked.stdout).not.toContain('catalogue:');
    const json = await cli.json<{ checked: { programmesStored: number }[]; failed: unknown[] }>([
      'ingest',
      '--check',
      '--json',
      file,
    ]);
    expect([json.checked[0]?.programmesStored, json.failed]).toEqual([1, []]);
    // Nothing reached DATABASE_URL's catalogue; a broken guide fails as an ingest would.
    expect((await cli.run(['channels', 'list'])).stdout).toContain('No channels.');
    const bad = join(cli.dir, 'bad-check.xml');
    writeFileSync(bad, guide('x').replace('<title>x</title>', '<title>x</titel>'));
    const refused = await cli.run(['ingest', '--check', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/bad-check\.xml: line 6: malformed XML: unexpected close tag/);
  });

  it("an ingest loads its engine's driver only, and nothing of the server", async () => {
    writeFileSync(join(cli.dir, 'guide.xml'), guide('Six One'));
    // Node names each CommonJS module it loads (NODE_DEBUG=module): the drivers are.
    const ingest = await cli.run(['ingest', join(cli.dir, 'guide.xml')], { NODE_DEBUG: 'module' });
    expect(ingest.code, ingest.stderr).toBe(0);
    const packages = new Set(
      [...ingest.stderr.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]),
    );
    expect(packages.has(cli.engine === 'sqlite' ? 'better-sqlite3' : 'pg')).toBe(true);
    const others = [cli.engine === 'sqlite' ? 'pg' : 'better-sqlite3', 'ioredis', 'fastify'];
    expect(others.filter((name) => packages.has(name))).toEqual([]);
  });

  it('the other commands start without the ingest, the XMLTV reader or webhook delivery', async () => {
    // NODE_DEBUG names each module loaded, ES (esm) and CommonJS (module) alike.
    const debug = { NODE_DEBUG: 'esm,module' };
    const loaded = (stderr: string) => ({
      reader: stderr.includes('catalogue/xmltv/xml-scanner.js'),
      pipeline: stderr.includes('catalogue/ingest/ingest-xmltv.js'),
      progressBar: /node_modules\/cli-progress\//.test(stderr),
      delivery: stderr.includes('webhooks/webhook-delivery.js'),
    });
    const none = { reader: false, pipeline: false, progressBar: false, delivery: false };
    const list = await cli.run(['accounts', 'list', '--json'], debug);
    expect(list.code, list.stderr).toBe(0);
    expect(loaded(list.stderr)).toEqual(none);
    const version = await cli.run(['--version'], debug);
    expect(version.code, version.stderr).toBe(0);
    expect(loaded(version.stderr)).toEqual(none);
    // And an ingest does load them, so the check above can tell.
    writeFileSync(join(cli.dir, 'guide.xml'), guide('Six One'));
    const ingest = await cli.run(['ingest', join(cli.dir, 'guide.xml')], debug);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(loaded(ingest.stderr)).toMatchObject({
      reader: true,
      pipeline: true,
      progressBar: true,
    });
  });

  it('a missing file is refused clearly', async () => {
    const missing = await cli.run(['ingest', join(cli.dir, 'nope.xml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.xml/);
  });

  // Exit 2 is commander's, before the command opens the database.
  itWithoutDatabase('a bad option is refused clearly', async () => {
    const badCountry = await cli.run(['ingest', 'x.xml', '--country', 'U_K']);
    expect(badCountry.code).toBe(2);
    const badOffset = await cli.run(['ingest', 'x.xml', '--assume-offset', '8']);
    expect(badOffset.code).toBe(2);
  });
});
