import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { itWithoutDatabase, openCliSandbox, type EngineCliSandbox } from '../helpers/cli-runner.js';

/** `onair feeds …` as an operator runs it, on the vitest project's engine. */

interface FeedJson {
  id: string;
  name: string;
  url: string;
  urlGz: string;
  token: string;
  lineup: { country?: string; channels?: string[] };
  daysAhead: number;
  daysBack: number;
}

let cli: EngineCliSandbox;
const PUBLIC_URL = 'https://tv.example.net';

beforeAll(async () => {
  cli = await openCliSandbox();
  cli.env.PUBLIC_URL = PUBLIC_URL;
  await cli.json(['ingest', fixturePath('basic.xml'), '--country', 'IE']);
  await cli.json(['accounts', 'create', '--email', 'ann@example.com', '--verified']);
});

afterAll(async () => {
  await cli?.dispose();
});

async function fails(args: string[], message: RegExp) {
  const result = await cli.run(args);
  expect(result.code, args.join(' ')).not.toBe(0);
  // One line, a usage error's too.
  const [line, ...rest] = result.stderr.trim().split('\n');
  expect(line).toMatch(message);
  expect(rest, result.stderr).toEqual([]);
}

describe('onair feeds', () => {
  itWithoutDatabase('has help listing its sub-commands', async () => {
    const result = await cli.run(['feeds', '--help']);
    expect(result.code).toBe(0);
    for (const sub of ['create', 'list', 'regenerate', 'delete']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${sub} `, 'm'));
    }
  });

  it('creates feeds by channel (XMLTV or Onair id, in order) or by country; lists and deletes', async () => {
    const byChannel = await cli.json<FeedJson>([
      'feeds',
      'create',
      '--email',
      'ann@example.com',
      '--name',
      'Kitchen',
      '--channel',
      'tg4.ie',
      '--channel',
      channelIdFor('rte1.ie'),
      // The same channel again, by its id in capitals: kept once, in its first place.
      '--channel',
      channelIdFor('tg4.ie').toUpperCase(),
      '--days-ahead',
      '3',
      '--days-back',
      '0',
    ]);
    expect(byChannel).toMatchObject({
      name: 'Kitchen',
      lineup: { channels: [channelIdFor('tg4.ie'), channelIdFor('rte1.ie')] },
      daysAhead: 3,
      daysBack: 0,
    });
    expect(byChannel.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(byChannel.url).toBe(`${PUBLIC_URL}/feeds/${byChannel.token}/guide.xml`);
    expect(byChannel.urlGz).toBe(`${byChannel.url}.gz`);

    const byCountry = await cli.json<FeedJson>([
      'feeds',
      'create',
      '--email',
      'ann@example.com',
      '--name',
      'Ireland',
      '--country',
      'ie',
    ]);
    expect(byCountry).toMatchObject({ lineup: { country: 'IE' }, daysAhead: 7, daysBack: 1 });

    const listed = await cli.run(['feeds', 'list', '--email', 'ann@example.com', '--json']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as FeedJson[]).map((f) => f.name)).toEqual([
      'Kitchen',
      'Ireland',
    ]);
    // Only the token's hash is kept: no listing shows it again.
    expect(listed.stdout).not.toContain(byChannel.token);

    expect(await cli.json(['feeds', 'delete', '--id', byChannel.id])).toEqual({
      id: byChannel.id,
      deleted: true,
    });
    await fails(['feeds', 'delete', '--id', byChannel.id], /no feed with id/);
    const after = await cli.json<FeedJson[]>(['feeds', 'list', '--email', 'ann@example.com']);
    expect(after.map((f) => f.name)).toEqual(['Ireland']);
  });

  it('says where the URL points when PUBLIC_URL is not set', async () => {
    const made = await cli.run(
      [
        ...['feeds', 'create', '--email', 'ann@example.com', '--name', 'Port'],
        ...['--country', 'IE', '--json'],
      ],
      { PUBLIC_URL: undefined, PORT: '3917' },
    );
    expect(made.code).toBe(0);
    const { id, token, url } = JSON.parse(made.stdout) as FeedJson;
    expect(url).toBe(`http://127.0.0.1:3917/feeds/${token}/guide.xml`);
    expect(made.stderr).toBe(
      "onair: note: PUBLIC_URL is not set, so the URL starts with http://127.0.0.1:3917 (HOST and PORT as this command has them); give the command the server's PUBLIC_URL, or put the token after the server's own address\n",
    );
    await cli.json(['feeds', 'delete', '--id', id]);
    // Nothing said when it is set.
    const quiet = await cli.run([
      ...['feeds', 'create', '--email', 'ann@example.com', '--name', 'Set'],
      ...['--country', 'IE', '--json'],
    ]);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    await cli.json(['feeds', 'delete', '--id', (JSON.parse(quiet.stdout) as FeedJson).id]);
  });

  it('lists a lineup of one channel in the singular', async () => {
    const one = await cli.json<FeedJson>([
      ...['feeds', 'create', '--email', 'ann@example.com', '--name', 'One'],
      ...['--channel', 'tg4.ie'],
    ]);
    const listed = await cli.run(['feeds', 'list', '--email', 'ann@example.com']);
    expect(listed.stdout).toContain(`${one.id}  "One"  1 channel  -1d +7d\n`);
    await cli.json(['feeds', 'delete', '--id', one.id]);
  });

  it('refuses bad requests with one line and a non-zero exit', async () => {
    const create = ['feeds', 'create', '--email', 'ann@example.com', '--name', 'x'];
    await fails(
      [...create, '--country', 'IE', '--channel', 'tg4.ie'],
      /either --country or one or more --channel/,
    );
    // Named as typed, not as the UUID an XMLTV id maps to.
    await fails(
      [...create, '--channel', 'tg4.ie', '--channel', 'nope.ie'],
      /^onair: error: no channel "nope\.ie" in the catalogue \(give a channel id or an XMLTV channel id\)$/,
    );
    // Of several missing, the first typed.
    await fails(
      [...create, '--channel', ' gone.ie', '--channel', 'tg4.ie', '--channel', 'nope.ie'],
      /^onair: error: no channel "gone\.ie" in the catalogue/,
    );
    // A number out of range is a usage error, as a malformed one is: exit code 2 and the hint.
    expect(await cli.run([...create, '--country', 'IE', '--days-ahead', '15'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `onair: error: option '--days-ahead <n>' argument '15' is invalid. days ahead must be a whole number from 1 to 14, not "15" (see bin/onair feeds create --help)\n`,
    });
    await fails(
      [...create, '--country', 'IE', '--days-back', '-1'],
      /days back .* 0 to 7, not "-1"/,
    );
    await fails(
      [...create, '--country', 'IE', '--days-back', 'two'],
      /days back .* 0 to 7, not "two"/,
    );
    await fails(
      ['feeds', 'create', '--email', 'bob@example.com', '--name', 'x', '--country', 'IE'],
      /no account with e-mail bob@example.com/,
    );
  });
});
