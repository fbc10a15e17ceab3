import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../helpers/cli-runner.js';
import { fixturePath } from '../ingest/ingest-helpers.js';

/**
 * `--country` applies to every channel of the input, stored ones included: a typo moves them
 * all out of their country. The CLI says so when the country is new to the catalogue. About a
 * message, not the engine: SQLite only.
 */

let cli: CliSandbox;

beforeAll(() => {
  cli = createCliSandbox();
});

afterAll(() => {
  cli?.dispose();
});

describe('onair ingest --country', () => {
  it('warns when stored channels move to a country no channel had', async () => {
    const guide = fixturePath('basic.xml');
    const first = await cli.run(['ingest', guide, '--country', 'IE']);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toMatch(/warning/);

    const typo = await cli.run(['ingest', guide, '--country', 'iee']);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toMatch(
      /^onair: warning: [^\n]*basic\.xml: \d+ channels? already in the catalogue moved to country IEE, which had none before; if that is a typo, ingest again with the right --country\n/m,
    );

    // A country the catalogue has: nothing to say.
    const again = await cli.run(['ingest', guide, '--country', 'IEE']);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/warning/);
  });
});
