import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestError } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { MAX_ENTITY_VALUE_CHARS } from '../../src/catalogue/xmltv/doctype-entities.js';
import { MAX_ELEMENT_DEPTH, MAX_TOKEN_CHARS } from '../../src/catalogue/xmltv/xmltv-reader.js';
import { createCliSandbox } from '../helpers/cli-runner.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import { NOW, catalogueState, fixturePath, fixtureText, ingest } from './ingest-helpers.js';

/**
 * Hostile XMLTV: random truncation, invalid UTF-8, entity expansion attempts, deep nesting and
 * a 100 MB single text node (generated as it is sent, never held by the test). Each is refused
 * with an IngestError naming the line, memory stays bounded, and the catalogue is unchanged.
 */

/** Each run is a whole ingest (worker thread included): a few dozen keep this to seconds. */
const RUNS = 20;
const MB = 1024 * 1024;

let temp: TempStore;
let before: Awaited<ReturnType<typeof catalogueState>>;

/** basic.xml with every title changed and a channel more: an ingest that would change a lot. */
const guide = fixtureText('basic.xml')
  .replaceAll('<title', '<title>Changed</title><title')
  .replace(
    '<channel id="tg4.ie">',
    '<channel id="new.ie"><display-name>New</display-name></channel>\n  <channel id="tg4.ie">',
  );
const guideBytes = Buffer.from(guide);
const guideEnd = guide.lastIndexOf('</tv>') + '</tv>'.length;

beforeAll(async () => {
  temp = openTempStore(NOW);
  await ingest(temp.store, fixturePath('basic.xml'), { country: 'IE' });
  await ingest(temp.store, fixturePath('messy.xml'));
  before = await catalogueState(temp);
});

afterAll(async () => {
  await temp.dispose();
});

/** Ingests the input; returns the IngestError it fails with, or null when it succeeds. */
async function attempt(input: Parameters<typeof ingest>[1]): Promise<IngestError | null> {
  const error = await ingest(temp.store, input, { country: 'IE', nowMs: NOW + 1000 }).then(
    () => null,
    (e: unknown) => e,
  );
  if (error !== null && !(error instanceof IngestError)) throw error;
  return error;
}

async function expectRefused(input: Parameters<typeof ingest>[1], message?: RegExp) {
  const error = await attempt(input);
  expect(error, 'the input is refused').toBeInstanceOf(IngestError);
  expect(error?.message).toMatch(/^line \d+: /);
  if (message !== undefined) expect(error?.message).toMatch(message);
  expect(await catalogueState(temp)).toEqual(before);
  return error as IngestError;
}

describe('hostile XMLTV is refused and the catalogue stays as it was', () => {
  it('a guide cut at any byte, plain or gzip', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: guideEnd - 1 }), async (cut) => {
        await expectRefused({ name: 'cut.xml', data: guideBytes.subarray(0, cut) });
      }),
      { numRuns: RUNS },
    );
    const gz = gzipSync(guideBytes);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: gz.length - 1 }), async (cut) => {
        const error = await attempt({ name: 'cut.xml.gz', data: gz.subarray(0, cut) });
        expect(error).toBeInstanceOf(IngestError);
        expect(await catalogueState(temp)).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('invalid UTF-8 anywhere', async () => {
    const invalid = fc.constantFrom(
      [0x80], // a continuation byte alone
      [0xbf, 0xbf],
      [0xc0, 0xaf], // overlong "/"
      [0xc1, 0x81],
      [0xe0, 0x80, 0xaf], // overlong
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate
      [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
      [0xf5],
      [0xff],
      [0xc3], // a lead byte without its continuation
      [0xe2, 0x82],
    );
    // After the XML declaration, so the bytes cannot pass for a byte order mark.
    const at = fc.integer({ min: guide.indexOf('?>') + 2, max: guideBytes.length });
    await fc.assert(
      fc.asyncProperty(at, invalid, async (position, bytes) => {
        const data = Buffer.concat([
          guideBytes.subarray(0, position),
          Buffer.from(bytes),
          guideBytes.subarray(position),
        ]);
        await expectRefused({ name: 'bad-utf8.xml', data }, /invalid UTF-8/);
      }),
      { numRuns: RUNS },
    );
  });

  it('entity expansion attempts: nesting, parameter and external entities, huge values, floods', async () => {
    const legal = 'x'.repeat(MAX_ENTITY_VALUE_CHARS);
    const attack = fc.oneof(
      fc.integer({ min: 2, max: 12 }).map((levels) => {
        // The classic "billion laughs": each entity ten of the one before.
        const decls = Array.from({ length: levels }, (_, i) =>
          i === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`,
        );
        return { decls: decls.join('\n'), use: `&lol${levels - 1};` };
      }),
      fc.constantFrom(
        { decls: '<!ENTITY % p "x"> %p;', use: '' },
        { decls: '<!ENTITY % p SYSTEM "http://127.0.0.1:1/evil.dtd"> %p;', use: '' },
        { decls: '<!ENTITY ext SYSTEM "file:///etc/passwd">', use: '&ext;' },
        { decls: '<!ENTITY ext PUBLIC "-//X//Y" "http://127.0.0.1:1/x">', use: '&ext;' },
        { decls: '<!ENTITY m "<desc>markup</desc>">', use: '&m;' },
        { decls: '', use: '&undefined;' },
        { decls: '', use: '&constructor;' },
      ),
      fc.integer({ min: 1, max: 1000 }).map((extra) => ({
        decls: `<!ENTITY big "${'y'.repeat(MAX_ENTITY_VALUE_CHARS + extra)}">`,
        use: '&big;',
      })),
      fc.integer({ min: 1001, max: 3000 }).map((n) => ({
        decls: Array.from({ length: n }, (_, i) => `<!ENTITY e${i} "v">`).join(''),
        use: '&e0;',
      })),
      // A legal entity referenced until the per-document budget (16 Mi characters) is spent.
      fc.integer({ min: 4_200, max: 8_000 }).map((refs) => ({
        decls: `<!ENTITY legal "${legal}">`,
        use: '&legal;'.repeat(refs),
      })),
    );
    await fc.assert(
      fc.asyncProperty(attack, async ({ decls, use }) => {
        const text = guide
          .replace('<!DOCTYPE tv SYSTEM "xmltv.dtd">', `<!DOCTYPE tv [\n${decls}\n]>`)
          .replace('Nuacht TG4', `Nuacht ${use}`);
        await expectRefused({ name: 'entities.xml', data: Buffer.from(text) });
      }),
      { numRuns: RUNS },
    );
  });

  it('elements nested deeper than any guide needs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_ELEMENT_DEPTH, max: 200_000 }), async (levels) => {
        const nested = `${'<x>'.repeat(levels)}${'</x>'.repeat(levels)}`;
        const text = guide.replace('<sub-title>Ignored</sub-title>', nested);
        await expectRefused(
          { name: 'deep.xml', data: Buffer.from(text) },
          /elements are nested more than \d+ levels deep/,
        );
      }),
      { numRuns: 10 },
    );
  });
});

/** A full garbage collection, from V8's own `gc` (exposed for this test only). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('a 100 MB single text node, streamed', () => {
  let server: Server;
  let base: string;
  const served = new Map<string, number>();

  /** Writes `total` bytes of `fill` between `head` and `tail`, honouring backpressure. */
  async function stream(
    res: ServerResponse,
    name: string,
    head: string,
    fill: number,
    total: number,
    tail: string,
  ) {
    const chunk = Buffer.alloc(64 * 1024, fill);
    let sent = 0;
    res.write(head);
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      served.set(name, sent);
      if (!res.write(chunk)) {
        // Whichever comes first; the other's listener goes too (left, a 'close' listener per
        // wait piled up on the response: Node's MaxListenersExceededWarning in every run).
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
      }
    }
    if (!res.destroyed) res.end(tail);
  }

  const open =
    '<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n<channel id="x.ie"><display-name>X</display-name></channel>\n';
  const programme =
    '<programme start="20260822190000 +0000" stop="20260822200000 +0000" channel="x.ie">';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const name = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/xml' });
      const total = 100 * MB;
      if (name === '/desc.xml') {
        void stream(
          res,
          name,
          `${open}${programme}<desc>`,
          0x61,
          total,
          '</desc></programme></tv>\n',
        );
      } else if (name === '/between.xml') {
        void stream(res, name, open, 0x20, total, '</tv>\n');
      } else if (name === '/attribute.xml') {
        void stream(res, name, `${open}<channel id="`, 0x62, total, '"/></tv>\n');
      } else if (name === '/bomb.xml.gz') {
        // A gzip bomb: 100 MB of spaces compressed to about 100 KB, compressed as it is sent.
        async function* spaces() {
          const chunk = Buffer.alloc(MB, 0x20);
          yield Buffer.from(open);
          for (let i = 0; i < 100; i++) yield chunk;
          yield Buffer.from('</tv>\n');
        }
        Readable.from(spaces())
          .pipe(createGzip({ level: 1 }))
          .pipe(res);
      } else {
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('in a description, between elements, in an attribute, or inflated from gzip: refused early', async () => {
    const limit = new RegExp(`more than ${MAX_TOKEN_CHARS / MB} Mi characters of text`);
    for (const name of ['/desc.xml', '/between.xml', '/attribute.xml', '/bomb.xml.gz']) {
      // What the cases before left behind is collected first, so it is not counted here.
      collectGarbage();
      const rssBefore = process.memoryUsage().rss;
      const error = await expectRefused(`${base}${name}`, limit);
      expect(error.line).toBe(4);
      // Read no further than the limit and the connection's buffers: never the 100 MB.
      if (name !== '/bomb.xml.gz') expect(served.get(name)).toBeLessThan(40 * MB);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * MB);
    }
  });

  it('through bin/onair: one line naming the problem, exit 1', async () => {
    const cli = createCliSandbox();
    try {
      const result = await cli.run(['ingest', `${base}/desc.xml`, '--country', 'IE']);
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^onair: error: http:.*\/desc\.xml: line 4: more than 8 Mi characters of text, attribute, comment or DOCTYPE without markup; the input is refused; the catalogue is unchanged by this input$/,
      );
    } finally {
      cli.dispose();
    }
  });
});
