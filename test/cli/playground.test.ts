import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PLAYGROUND_XMLTV_IDS } from '../../src/catalogue/demo-catalogue.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import {
  itWithoutDatabase,
  openCliSandbox,
  startServe,
  type EngineCliSandbox,
} from '../helpers/cli-runner.js';

const BASIC = resolve(import.meta.dirname, '../fixtures/xmltv/basic.xml');
const RTE = channelIdFor('rte1.ie');
const TG4 = channelIdFor('tg4.ie');

// On the vitest project's engine: a SQLite file, or a fresh PostgreSQL database.
let cli: EngineCliSandbox;

beforeAll(async () => {
  cli = await openCliSandbox();
  const ingest = await cli.run(['ingest', BASIC, '--country', 'IE']);
  expect(ingest.code, ingest.stderr).toBe(0);
});

afterAll(async () => {
  await cli.dispose();
});

interface Marked {
  id: string;
  name: string;
  country: string;
}

describe('bin/onair playground', () => {
  itWithoutDatabase('has help for every sub-command', async () => {
    for (const args of [['playground'], ['playground', 'add'], ['playground', 'remove']]) {
      const result = await cli.run([...args, '--help']);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: onair playground/);
    }
  });

  it('adds channels by XMLTV id or channel id, lists and removes them', async () => {
    expect(await cli.json<Marked[]>(['playground', 'list'])).toEqual([]);
    const empty = await cli.run(['playground', 'list']);
    expect(empty.stdout).toMatch(
      /No channels in the playground\. Add some with: bin\/onair playground add /,
    );

    const added = await cli.run(['playground', 'add', 'rte1.ie', TG4.toUpperCase()]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Added to the playground: RTÉ a hAon (IE, ${RTE}).`);
    expect(added.stdout).toContain(`Added to the playground: TG4 (IE, ${TG4}).`);

    const again = await cli.json<{ added: Marked[]; alreadyThere: Marked[] }>([
      'playground',
      'add',
      RTE,
    ]);
    expect(again).toEqual({
      added: [],
      alreadyThere: [{ id: RTE, name: 'RTÉ a hAon', country: 'IE' }],
    });

    expect((await cli.json<Marked[]>(['playground', 'list'])).map((c) => c.id)).toEqual([RTE, TG4]);
    const listed = await cli.run(['playground', 'list']);
    expect(listed.stdout).toContain(`${RTE}  IE   RTÉ a hAon`);
    expect(listed.stdout).toContain('2 channel(s) in the playground.');

    const removed = await cli.json<{ removed: Marked[]; notThere: { id: string }[] }>([
      'playground',
      'remove',
      'tg4.ie',
    ]);
    expect(removed).toEqual({
      removed: [{ id: TG4, name: 'TG4', country: 'IE' }],
      notThere: [],
    });
    const twice = await cli.run(['playground', 'remove', 'tg4.ie']);
    expect(twice).toMatchObject({ code: 0, stdout: `Was not in the playground: ${TG4}.\n` });
    expect((await cli.json<Marked[]>(['playground', 'list'])).map((c) => c.id)).toEqual([RTE]);
  });

  it('refuses a channel that is not in the catalogue in one line, changing nothing', async () => {
    const before = await cli.json<Marked[]>(['playground', 'list']);
    const result = await cli.run(['playground', 'add', 'tg4.ie', 'nope.ie']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'onair: error: no channel "nope.ie" in the catalogue (give a channel id or an XMLTV channel id); nothing changed\n',
    );
    expect(await cli.json<Marked[]>(['playground', 'list'])).toEqual(before);
    const usage = await cli.run(['playground', 'add']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/missing required argument/);
  });

  it('changes what a running server previews, at once', async () => {
    const server = await startServe(cli);
    try {
      const countries = async () =>
        (
          (await (await fetch(`${server.url}/playground/api/countries`)).json()) as {
            countries: unknown[];
          }
        ).countries;
      expect(await countries()).toEqual([{ country: 'IE', channelCount: 1 }]);
      expect((await cli.run(['playground', 'remove', 'rte1.ie'])).code).toBe(0);
      expect(await countries()).toEqual([]);
      expect((await cli.run(['playground', 'add', 'tg4.ie', 'rte1.ie'])).code).toBe(0);
      expect(await countries()).toEqual([{ country: 'IE', channelCount: 2 }]);
    } finally {
      await server.stop();
    }
  });

  it('starts with a handful of demo channels when `serve --demo` loads the demo guide', async () => {
    const demo = await openCliSandbox();
    try {
      const server = await startServe(demo, ['--demo']);
      try {
        const res = await fetch(`${server.url}/playground/api/countries`);
        expect(((await res.json()) as { countries: unknown[] }).countries).toEqual([
          { country: 'DE', channelCount: 1 },
          { country: 'ES', channelCount: 1 },
          { country: 'FR', channelCount: 1 },
          { country: 'UK', channelCount: 2 },
        ]);
      } finally {
        await server.stop();
      }
      const marked = await demo.json<Marked[]>(['playground', 'list']);
      expect(marked.map((c) => c.id).sort()).toEqual(
        DEMO_PLAYGROUND_XMLTV_IDS.map(channelIdFor).sort(),
      );
    } finally {
      await demo.dispose();
    }
  });
});
