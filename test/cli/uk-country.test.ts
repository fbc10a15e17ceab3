import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { fixturePath } from '../ingest/ingest-helpers.js';

/**
 * `UK` is how guides often write the United Kingdom (ISO 3166 says GB). It answers as it
 * always did; where an answer is an error about the country, the message names GB too. About
 * messages, not the engine: SQLite only.
 */

let cli: CliSandbox;
let server: ServeProcess;
let key: string;

beforeAll(async () => {
  cli = createCliSandbox();
  await cli.json(['ingest', fixturePath('basic.xml'), '--country', 'IE']);
  await cli.json(['accounts', 'create', '--email', 'ann@example.com', '--verified']);
  key = (await cli.json<{ key: string }>(['keys', 'create', '--email', 'ann@example.com'])).key;
  server = await startServe(cli);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  cli?.dispose();
});

describe('the country UK', () => {
  it('answers the country path as before: 200 and the code as asked, channels or none', async () => {
    for (const [code, body] of [
      ['UK', '{"country":"UK","channels":[]}'],
      ['uk', '{"country":"UK","channels":[]}'],
      ['GB', '{"country":"GB","channels":[]}'],
    ] as const) {
      const res = await fetch(`${server.url}/api/v1/countries/${code}/channels`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status, code).toBe(200);
      expect(await res.text(), code).toBe(body);
    }
  });

  it('a feed of a country without channels: the message names GB for UK, and only for UK', async () => {
    const create = (country: string) =>
      cli.run([
        'feeds',
        'create',
        '--email',
        'ann@example.com',
        '--name',
        'TV',
        '--country',
        country,
      ]);
    const uk = await create('uk');
    expect(uk.code).toBe(1);
    expect(uk.stderr).toBe(
      'onair: error: no channels in country UK (ISO 3166 code for the United Kingdom: GB)\n',
    );
    const gb = await create('GB');
    expect(gb.code).toBe(1);
    expect(gb.stderr).toBe('onair: error: no channels in country GB\n');
  });
});
