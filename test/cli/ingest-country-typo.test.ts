import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('watches every input of a run: one adding channels does not hide the next moving some', async () => {
    const own = createCliSandbox();
    try {
      expect((await own.run(['ingest', fixturePath('basic.xml'), '--country', 'IE'])).code).toBe(0);
      // rich.xml's two channels are new (no warning); basic.xml's two stored ones move.
      const run = await own.run([
        'ingest',
        fixturePath('rich.xml'),
        fixturePath('basic.xml'),
        '--country',
        'ZZY',
      ]);
      expect(run.code).toBe(0);
      const warnings = run.stderr.split('\n').filter((line) => line.includes('warning'));
      expect(warnings).toEqual([
        expect.stringMatching(
          /basic\.xml: 2 channels already in the catalogue moved to country ZZY/,
        ),
      ]);
    } finally {
      own.dispose();
    }
  });

  it('does not count a renamed channel whose country is fixed as moved', async () => {
    const own = createCliSandbox();
    try {
      const guide = fixturePath('basic.xml');
      expect((await own.run(['ingest', guide, '--country', 'IE'])).code).toBe(0);
      for (const id of ['rte1.ie', 'tg4.ie']) {
        expect((await own.run(['channels', 'set', id, '--country', 'IE'])).code).toBe(0);
      }
      const renamed = join(own.dir, 'renamed.xml');
      writeFileSync(
        renamed,
        readFileSync(guide, 'utf8').replace(
          '<display-name>TG4</display-name>',
          '<display-name>TG4 HD</display-name>',
        ),
      );
      const run = await own.run(['ingest', renamed, '--country', 'ZZX']);
      expect(run.code).toBe(0);
      // The rename is stored (an update), yet no channel left IE.
      expect(run.stdout).toMatch(/1 updated/);
      expect(run.stderr).not.toMatch(/warning/);
    } finally {
      own.dispose();
    }
  });
});
