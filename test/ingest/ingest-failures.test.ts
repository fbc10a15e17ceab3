import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { downloadLimits } from '../../src/catalogue/ingest/guide-download.js';
import { IngestError } from '../../src/catalogue/ingest/ingest-xmltv.js';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';
import { NOW, catalogueState, fixturePath, fixtureText, ingest, lineOf } from './ingest-helpers.js';

let temp: TempStore;
let store: SqliteStore;

beforeEach(async () => {
  temp = openTempStore(NOW);
  store = temp.store;
  // Every failure below must leave this catalogue exactly as it is.
  await ingest(store, fixturePath('basic.xml'), { country: 'IE' });
  await ingest(store, fixturePath('messy.xml'));
});

afterEach(async () => {
  await temp.dispose();
});

/** basic.xml with every title changed and a new channel: an ingest that would change a lot. */
const changedGuide = fixtureText('basic.xml')
  .replaceAll('<title', '<title>Changed</title><title')
  .replace(
    '<channel id="tg4.ie">',
    '<channel id="new.ie"><display-name>New</display-name></channel>\n  <channel id="tg4.ie">',
  );

async function expectRefused(
  input: Parameters<typeof ingest>[1],
  message: string | RegExp,
  overrides: Parameters<typeof ingest>[2] = {},
): Promise<IngestError> {
  const before = await catalogueState(temp);
  const error = await ingest(store, input, { nowMs: NOW + 1000, country: 'IE', ...overrides }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestError);
  expect((error as IngestError).message).toMatch(message);
  expect(await catalogueState(temp)).toEqual(before);
  return error as IngestError;
}

const lineCount = (text: string) => text.split('\n').length;

describe('a refused input leaves the catalogue unchanged and names the line', () => {
  it('a file cut inside a programme', async () => {
    const cut = changedGuide.slice(0, changedGuide.indexOf('Dublin soap'));
    const file = join(temp.dir, 'cut.xml');
    writeFileSync(file, cut);
    await expectRefused(file, `line ${lineCount(cut)}: unexpected end of file inside <programme>`);
  });

  it('malformed XML', async () => {
    const broken = changedGuide.replace('<title>Nuacht TG4</title>', '<title>Nuacht TG4</titel>');
    await expectRefused(
      { name: 'broken.xml', data: Buffer.from(broken) },
      `line ${lineOf(broken, '</titel>')}: malformed XML: unexpected close tag`,
    );
  });

  it('invalid UTF-8', async () => {
    const text = Buffer.from(changedGuide);
    const at = text.indexOf('TG4</title>');
    const bad = Buffer.concat([text.subarray(0, at), Buffer.from([0xff]), text.subarray(at)]);
    await expectRefused(
      { name: 'bad-utf8.xml', data: bad },
      `line ${lineOf(changedGuide, 'TG4</title>')}: invalid UTF-8 byte sequence (0xff)`,
    );
  });

  it('a truncated gzip file', async () => {
    const gz = gzipSync(Buffer.from(changedGuide.repeat(1)));
    const cut = gz.subarray(0, Math.floor(gz.length * 0.7));
    const partial = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    const file = join(temp.dir, 'cut.xml.gz');
    writeFileSync(file, cut);
    await expectRefused(
      file,
      `line ${lineCount(partial)}: the gzip data is truncated (unexpected end of file)`,
    );
  });

  it('corrupt gzip data', async () => {
    const gz = gzipSync(Buffer.from(changedGuide));
    gz.fill(0x55, 20, 40);
    // Broken at its 20th byte: nothing was read, so no line is named.
    await expectRefused({ name: 'corrupt.gz', data: gz }, /^the gzip data is corrupt/);
  });

  it('gzip data broken before any text names no line', async () => {
    // The magic bytes, then garbage: nothing was read, so "line 1" would point at nothing.
    const data = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from('garbage!')]);
    const error = await expectRefused({ name: 'garbage.xml.gz', data }, /^the gzip data is /);
    expect(error.line).toBeNull();
  });

  it('an unsupported encoding', async () => {
    const text = changedGuide.replace('encoding="UTF-8"', 'encoding="EBCDIC-FOO"');
    await expectRefused({ name: 'ebcdic.xml', data: Buffer.from(text) }, /^line 1: .*"EBCDIC-FOO"/);
  });

  it('a file that does not exist', async () => {
    const error = await expectRefused(
      join(temp.dir, 'nope.xml'),
      /cannot read ".*nope\.xml": no such file/,
    );
    expect(error.line).toBeNull();
  });

  it('a failure inside the merge rolls the whole merge back', async () => {
    // A trigger in the catalogue file, so the staging connection's merge meets it too.
    store.db.exec(`CREATE TRIGGER catalogue.refuse BEFORE INSERT ON programmes
      WHEN NEW.title = 'Changed' BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END`);
    const before = await catalogueState(temp);
    const error = await ingest(
      store,
      { name: 'changed.xml', data: Buffer.from(changedGuide) },
      {
        country: 'IE',
      },
    ).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/refused by trigger/);
    expect(error).not.toBeInstanceOf(IngestError);
    store.db.exec('DROP TRIGGER catalogue.refuse');
    expect(await catalogueState(temp)).toEqual(before);
  });
});

describe('gzip input', () => {
  it('is detected by its magic bytes, whatever the name', async () => {
    const xml = readFileSync(fixturePath('basic.xml'));
    const gz = gzipSync(xml);
    const file = join(temp.dir, 'guide.dat');
    writeFileSync(file, gz);
    const summary = await ingest(store, file, { country: 'IE', nowMs: NOW + 1 });
    expect(summary).toMatchObject({
      gzip: true,
      bytesRead: gz.length,
      bytesUncompressed: xml.length,
      sha256: createHash('sha256').update(gz).digest('hex'),
      programmesStored: 3,
      // The same content as the plain file ingested before: nothing changes.
      merge: expect.objectContaining({ programmesUnchanged: 3, programmesAdded: 0 }),
    });
    const plain = join(temp.dir, 'guide.xml.gz');
    writeFileSync(plain, xml);
    expect((await ingest(store, plain, { country: 'IE' })).gzip).toBe(false);
  });
});

describe('http(s) input', () => {
  let server: Server;
  let base: string;
  const xml = readFileSync(fixturePath('basic.xml'));
  const gz = gzipSync(Buffer.from(changedGuide));
  /** Requests per path, to tell a retry from a single try. */
  const seen = new Map<string, number>();
  /** Short waits, so retries and timeouts happen within a test. */
  const quick = { download: { ...downloadLimits(2_000, 64 * 1024), retryDelayMs: 20 } };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url?.split('?')[0] ?? '/';
      seen.set(path, (seen.get(path) ?? 0) + 1);
      switch (path) {
        case '/private.xml':
          if (
            req.headers.authorization !== `Basic ${Buffer.from('me:s3cr et').toString('base64')}`
          ) {
            res.writeHead(401);
            res.end();
            break;
          }
          res.writeHead(200, { 'content-type': 'application/xml' });
          res.end(xml);
          break;
        case '/busy-once.xml':
          if (seen.get(path) === 1) {
            res.writeHead(503);
            res.end('busy');
            break;
          }
          res.writeHead(200, { 'content-type': 'application/xml' });
          res.end(xml);
          break;
        case '/chunked.xml': // no Content-Length: the size is known only as the bytes come
          res.writeHead(200, { 'content-type': 'application/xml' });
          res.write(xml.subarray(0, 500));
          res.end(xml.subarray(500));
          break;
        case '/stalls.xml':
          res.writeHead(200, { 'content-type': 'application/xml' });
          res.write(changedGuide.slice(0, 600)); // then nothing more
          break;
        case '/guide.xml':
          res.writeHead(200, { 'content-type': 'application/xml', 'content-length': xml.length });
          res.end(xml);
          break;
        case '/guide.xml.gz':
          res.writeHead(200, { 'content-type': 'application/gzip' });
          res.end(gz);
          break;
        case '/encoded.xml':
          res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' });
          res.end(gz);
          break;
        case '/cut.xml.gz':
          res.writeHead(200, { 'content-type': 'application/gzip' });
          res.end(gz.subarray(0, gz.length - 40));
          break;
        case '/dropped.xml':
          res.writeHead(200, { 'content-type': 'application/xml', 'content-length': 100_000 });
          res.write(changedGuide.slice(0, 600));
          setTimeout(() => res.destroy(), 20);
          break;
        default:
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('no such guide');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('streams a plain guide, knowing its size', async () => {
    const progress: (number | null)[] = [];
    const summary = await ingest(store, `${base}/guide.xml`, {
      country: 'IE',
      onProgress: (_, total) => progress.push(total),
    });
    expect(summary).toMatchObject({
      source: `${base}/guide.xml`,
      gzip: false,
      bytesRead: xml.length,
    });
    expect(progress.every((total) => total === xml.length)).toBe(true);
  });

  it('keeps a query (which may hold an API key) out of the ingest record and its errors', async () => {
    const summary = await ingest(store, `${base}/guide.xml?apikey=s3cret`, { country: 'IE' });
    expect(summary.source).toBe(`${base}/guide.xml`);
    expect(JSON.stringify(summary)).not.toContain('s3cret');
    await expectRefused(
      `${base}/missing.xml?apikey=s3cret`,
      `HTTP 404 Not Found from ${base}/missing.xml`,
    );
  });

  it('gunzips a gzip body, and takes a Content-Encoding as fetch undoes it', async () => {
    const file = await ingest(store, `${base}/guide.xml.gz`, { country: 'IE', nowMs: NOW + 5 });
    expect(file).toMatchObject({
      gzip: true,
      bytesRead: gz.length,
      merge: expect.objectContaining({ programmesUpdated: 3 }),
    });
    const encoded = await ingest(store, `${base}/encoded.xml`, { country: 'IE', nowMs: NOW + 6 });
    expect(encoded).toMatchObject({
      gzip: false,
      merge: expect.objectContaining({ programmesUnchanged: 3 }),
    });
  });

  it('refuses a 404, a truncated body and a dropped connection, leaving the catalogue alone', async () => {
    await expectRefused(`${base}/missing.xml`, `HTTP 404 Not Found from ${base}/missing.xml`);
    await expectRefused(`${base}/cut.xml.gz`, /^line \d+: the gzip data is truncated/);
    await expectRefused(`${base}/dropped.xml`, /^line \d+: /);
  });

  it('refuses a server that does not answer, after the tries a source makes', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/guide.xml`;
    await new Promise((resolve) => closed.close(resolve));
    await expectRefused(
      url,
      new RegExp(
        `^cannot fetch ${url.replace(/[.]/g, '\\.')}: fetch failed.* \\(after 3 tries\\)$`,
      ),
      quick,
    );
  });

  it('sends a URL’s credentials as Basic authentication and keeps them out of the record', async () => {
    const summary = await ingest(store, base.replace('//', '//me:s3cr%20et@') + '/private.xml', {
      country: 'IE',
    });
    expect(summary.source).toBe(`${base}/private.xml`);
    expect(JSON.stringify(summary)).not.toMatch(/s3cr|me:/);
    await expectRefused(
      base.replace('//', '//me:wrong@') + '/private.xml',
      `HTTP 401 Unauthorized from ${base}/private.xml`,
    );
  });

  it('retries a failure before the body starts, never one after', async () => {
    const summary = await ingest(store, `${base}/busy-once.xml`, { country: 'IE', ...quick });
    expect(summary.source).toBe(`${base}/busy-once.xml`);
    expect(seen.get('/busy-once.xml')).toBe(2);
    // The first bytes already went into the parser: the stall ends the ingest, with no retry.
    const started = Date.now();
    await expectRefused(
      `${base}/stalls.xml`,
      /^line \d+: no (data for|complete answer within) 2 s$/,
      quick,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(seen.get('/stalls.xml')).toBe(1);
  });

  it('refuses a guide over the size limit, declared or as it streams', async () => {
    const small = { download: { ...quick.download, maxBytes: xml.length - 1 } };
    await expectRefused(
      `${base}/guide.xml`,
      `the guide is larger than the limit of ${xml.length - 1} bytes (Content-Length ${xml.length})`,
      small,
    );
    await expectRefused(
      `${base}/chunked.xml`,
      // A line only if some of it was read before the limit was passed (how it arrived).
      new RegExp(`^(line \\d+: )?the guide is larger than the limit of ${xml.length - 1} bytes$`),
      small,
    );
  });
});
