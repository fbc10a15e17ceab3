import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The layer rules `npm run lint` enforces (.dependency-cruiser.mjs), tried on small made-up
 * trees: each wrong import fails with the rule's name and the reason it gives, and the same
 * tree without it passes.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');
const run = promisify(execFile);

let dir: string | null = null;
afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** Runs depcruise over a tree of `files` (path → source); resolves with its exit and output. */
async function cruise(files: Record<string, string>): Promise<{ code: number; output: string }> {
  dir = mkdtempSync(join(tmpdir(), 'onair-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
  );
  try {
    const { stdout } = await run(
      DEPCRUISE,
      ['src', '--config', CONFIG, '--output-type', 'err-long'],
      {
        cwd: dir,
      },
    );
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

const entity = 'export interface Channel { id: string }\n';

describe('layer rules', () => {
  it('pass a tree that keeps them', async () => {
    const result = await cruise({
      'src/domain/channel.ts': entity,
      'src/storage/catalogue-reader.ts':
        "import type { Channel } from '../domain/channel.js';\nexport type Reader = () => Channel[];\n",
      'src/http/v1/countries-routes.ts':
        "import type { Reader } from '../../storage/catalogue-reader.js';\nexport const r: Reader | null = null;\n",
      'src/web/web-routes.ts':
        "import type { Channel } from '../domain/channel.js';\nexport type C = Channel;\n",
    });
    expect(result.output).toContain('no dependency violations found');
    expect(result.code).toBe(0);
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'domain-imports-no-other-layer',
      {
        'src/storage/store.ts': 'export interface Store { ping(): void }\n',
        'src/domain/channel.ts':
          "import type { Store } from '../storage/store.js';\nexport type S = Store;\n",
      },
      /must not\s+depend on any of them/,
    ],
    [
      'storage-knows-only-the-domain',
      {
        'src/http/schemas.ts': 'export const schema = 1;\n',
        'src/storage/rows.ts':
          "import { schema } from '../http/schemas.js';\nexport const s = schema;\n",
      },
      /knows no HTTP/,
    ],
    [
      'api-is-not-the-pages',
      {
        'src/web/views/layout.ts': 'export const page = 1;\n',
        'src/http/v1/channels-routes.ts':
          "import { page } from '../../web/views/layout.js';\nexport const p = page;\n",
      },
      /separate wings/,
    ],
    [
      'pages-are-not-the-api',
      {
        'src/http/answers/body-cache.ts': 'export const cache = 1;\n',
        'src/web/web-routes.ts':
          "import { cache } from '../http/answers/body-cache.js';\nexport const c = cache;\n",
      },
      /never the keyed API/,
    ],
    [
      'services-below-the-ways-in',
      {
        'src/cli/option-parsers.ts': 'export const parse = 1;\n',
        'src/catalogue/ingest/ingest-xmltv.ts':
          "import { parse } from '../../cli/option-parsers.js';\nexport const p = parse;\n",
      },
      /never the other way round/,
    ],
    [
      'catalogue-does-not-use-sources',
      {
        'src/sources/source-download.ts': 'export const download = 1;\n',
        'src/catalogue/ingest/byte-source.ts':
          "import { download } from '../../sources/source-download.js';\nexport const d = download;\n",
      },
      /knows nothing\s+of registered sources/,
    ],
    [
      'no-circular',
      {
        'src/accounts/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'src/accounts/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      },
      /import each other/,
    ],
  ];

  for (const [rule, files, why] of cases) {
    it(`refuse an import against ${rule}, saying why`, async () => {
      const result = await cruise({ 'src/domain/channel.ts': entity, ...files });
      expect(result.code).not.toBe(0);
      expect(result.output).toContain(`error ${rule}:`);
      expect(result.output).toMatch(why);
    });
  }
});
