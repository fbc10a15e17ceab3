import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
// The server, from the repository's sources: the client is tested against the real thing.
import { issueApiKey } from '../../../src/accounts/account-service.js';
import { ingestXmltv } from '../../../src/catalogue/ingest/ingest-xmltv.js';
import { loadConfig } from '../../../src/config.js';
import type { ChangesResponse as ServerChanges } from '../../../src/http/schemas.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { OnairClient, OnairError, type ChangesResponse } from '../src/index.js';

let dir: string;
let server: RunningServer;
let onair: OnairClient;

const guide = (titles: string[]) =>
  Buffer.from(`<tv><channel id="c.uk"><display-name>See</display-name></channel>
${titles
  .map(
    (title, i) =>
      `<programme start="2026090${i + 1}060000 +0000" stop="2026090${i + 1}070000 +0000" channel="c.uk"><title>${title}</title></programme>`,
  )
  .join('\n')}</tv>`);

const ingest = (titles: string[]) =>
  ingestXmltv(
    server.store.ingest,
    { name: 'guide.xml', data: guide(titles) },
    { country: null, assumeOffsetMinutes: 0, nowMs: Date.now() },
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onair-client-changes-'));
  server = await startServer(
    loadConfig({ DATABASE_URL: join(dir, 'onair.db'), PORT: '0', LOG_LEVEL: 'warn' }),
  );
  const now = Date.now();
  const account = await server.store.accounts.createAccount(
    { email: 'changes@example.com', verifiedAt: now, accessUntil: null, rateLimit: 1000 },
    now,
  );
  const { key } = await issueApiKey(server.store.accounts, account.id, 'client test', now);
  onair = new OnairClient({ baseUrl: server.url, apiKey: key });
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('changes() and followChanges()', () => {
  it('start from now, then follow every page of what the ingests changed', async () => {
    const start = await onair.changes(null);
    expect(start).toEqual({ changes: [], next: 0, hasMore: false });
    // Left out, as from JavaScript, or undefined: the same (not `since=undefined`, a 400).
    expect(await onair.changes()).toEqual(start);
    expect(await onair.changes(undefined, { limit: 5 })).toEqual(start);
    await ingest(['One', 'Two', 'Three', 'Four', 'Five']);
    await ingest(['One', 'Deux', 'Three', 'Four']);

    const pages: ChangesResponse[] = [];
    for await (const page of onair.followChanges(start.next, { limit: 2 })) pages.push(page);
    // 1 channel and 5 programmes added, then 1 changed and 1 removed: 8 records, 4 pages.
    expect(pages.map((p) => p.changes.length)).toEqual([2, 2, 2, 2]);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, true, false]);
    const seqs = pages.flatMap((p) => p.changes.map((c) => c.seq));
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(pages.at(-1)?.next).toBe(8);
    expect(
      pages
        .flatMap((p) => p.changes.map((c) => `${c.kind} ${c.change}`))
        .slice(-2)
        .sort(),
    ).toEqual(['programme changed', 'programme removed']);
    // Caught up: one page, nothing in it.
    const more: ChangesResponse[] = [];
    for await (const page of onair.followChanges(8)) more.push(page);
    expect(more).toEqual([{ changes: [], next: 8, hasMore: false }]);
  });

  it('fails with CURSOR_EXPIRED for a since the server never wrote', async () => {
    const error = await onair.changes(1_000_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OnairError);
    expect(error).toMatchObject({ status: 410, code: 'CURSOR_EXPIRED' });
  });

  it("types the answer as the server's schema does", () => {
    expectTypeOf<ChangesResponse>().toEqualTypeOf<Static<typeof ServerChanges>>();
  });
});
