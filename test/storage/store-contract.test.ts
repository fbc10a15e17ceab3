import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv, type IngestSummary } from '../../src/catalogue/ingest.js';
import { channelIdFor, programmeIdFor } from '../../src/domain/catalogue-ids.js';
import { DuplicateAccountError } from '../../src/storage/errors.js';
import type { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import type { Store } from '../../src/storage/types.js';
import { ENGINES, openEngineStore, type EngineStore } from '../helpers/engines.js';
import { fixturePath, NOW } from '../ingest/ingest-helpers.js';

const DAY = 86_400_000;
const CORPUS =
  process.env.ONAIR_CORPUS_DIR ?? join(import.meta.dirname, '../../../shared/corpus/xmltv');

/** Everything a customer can read of a catalogue, through the Store interface only. */
async function catalogueView(store: Store) {
  const countries = await store.catalogue.listCountries();
  const channels = [];
  for (const { country } of countries)
    channels.push(...(await store.catalogue.listChannels(country)));
  const programmes: Record<string, unknown[]> = {};
  for (const channel of channels) {
    programmes[channel.id] = (
      await store.catalogue.listProgrammes(channel.id, { kind: 'all' })
    ).map(
      // The source file id is a fresh UUID per ingest; its presence is what matters.
      ({ sourceFileId, ...rest }) => ({ ...rest, sourceFileId: sourceFileId.length }),
    );
  }
  return { countries, channels, programmes };
}

function guide(title: string, day: number): Buffer {
  const t = (h: number) =>
    `202603${String(day).padStart(2, '0')}${String(h).padStart(2, '0')}0000 +0000`;
  return Buffer.from(`<tv>
<channel id="a.uk"><display-name>Ä 100% _real_ Channel</display-name></channel>
<channel id="b.fr"><display-name>Télé Lumière</display-name><icon src="https://img.example/b.png"/></channel>
<programme start="${t(6)}" stop="${t(7)}" channel="a.uk"><title>${title} one</title></programme>
<programme start="${t(7)}" stop="${t(8)}" channel="a.uk"><title>${title} two</title></programme>
<programme start="${t(6)}" stop="${t(8)}" channel="b.fr"><title>${title} film</title><category>Film</category><category>Drama</category></programme>
</tv>`);
}

const run = (store: Store, data: Buffer | string, nowMs = NOW, country: string | null = null) =>
  ingestXmltv(
    store.ingest,
    typeof data === 'string' ? { source: data } : { name: 'guide.xml', data },
    { country, assumeOffsetMinutes: 0, nowMs },
  );

describe.each(ENGINES)('store contract: %s', (engine) => {
  let s: EngineStore;
  beforeAll(async () => {
    s = await openEngineStore(engine, NOW);
  });
  afterAll(async () => {
    await s?.dispose();
  });

  it('ingests, lists, searches and merges by the catalogue rules', async () => {
    const store = s.store;
    const first = await run(store, guide('Day', 1));
    expect(first.merge).toMatchObject({ channelsAdded: 2, programmesAdded: 3 });
    expect(await store.catalogue.listCountries()).toEqual([
      { country: 'FR', channelCount: 1 },
      { country: 'UK', channelCount: 1 },
    ]);
    const [fr] = await store.catalogue.listChannels('FR');
    expect(fr).toEqual({
      id: channelIdFor('b.fr'),
      name: 'Télé Lumière',
      icon: 'https://img.example/b.png',
      country: 'FR',
      needsReview: true, // country inferred from the id
    });
    // Substring, case- and accent-insensitive; % and _ are plain characters.
    const names = async (needle: string, country: string | null = null) =>
      (await store.catalogue.searchChannels(needle, country, 200)).map((c) => c.name);
    expect(await names('tele')).toEqual(['Télé Lumière']);
    expect(await names('100%')).toEqual(['Ä 100% _real_ Channel']);
    expect(await names('_real_')).toEqual(['Ä 100% _real_ Channel']);
    expect(await names('0_r')).toEqual([]);
    // Name order is by the lower-cased name's code points, the same on every engine.
    expect(await names('e')).toEqual(['Télé Lumière', 'Ä 100% _real_ Channel']);
    expect(await names('e', 'FR')).toEqual(['Télé Lumière']);
    expect(await names('a 1')).toEqual(['Ä 100% _real_ Channel']); // Ä folds to a
    expect((await store.catalogue.searchChannels('e', null, 1)).length).toBe(1);

    const a = channelIdFor('a.uk');
    const from = Date.UTC(2026, 2, 1, 7);
    const windowed = await store.catalogue.listProgrammes(a, { kind: 'range', fromMs: from });
    expect(windowed.map((p) => p.title)).toEqual(['Day two']);
    const between = await store.catalogue.listProgrammes(a, {
      kind: 'range',
      fromMs: Date.UTC(2026, 2, 1),
      toMs: from,
    });
    expect(between.map((p) => p.title)).toEqual(['Day one']);
    expect(await store.catalogue.channelExists(a)).toBe(true);
    expect(await store.catalogue.channelExists(channelIdFor('nope'))).toBe(false);
    expect(await store.catalogue.countChannels()).toBe(2);

    // The same file again changes nothing.
    const before = await catalogueView(store);
    const again = await run(store, guide('Day', 1), NOW + DAY);
    expect(again.merge).toMatchObject({
      programmesAdded: 0,
      programmesUpdated: 0,
      programmesRemoved: 0,
    });
    expect(await catalogueView(store)).toEqual(before);

    // A later file replaces from its earliest start on; history before it stays.
    await run(store, guide('Next', 2), NOW + DAY, 'GB');
    const titles = (await store.catalogue.listProgrammes(a, { kind: 'all' })).map((p) => p.title);
    expect(titles).toEqual(['Day one', 'Day two', 'Next one', 'Next two']);
    expect((await store.catalogue.listChannels('GB')).map((c) => c.needsReview)).toEqual([
      false,
      false,
    ]);
  });

  it('an aborted ingest leaves the catalogue as it was', async () => {
    const before = await catalogueView(s.store);
    const session = await s.store.ingest.beginIngest();
    session.stageChannel({
      id: channelIdFor('z.zz'),
      xmltvId: 'z.zz',
      name: 'Z',
      icon: '',
      country: 'ZZ',
      fallbackCountry: 'ZZ',
      declared: true,
    });
    await session.drain();
    await session.abort();
    expect(await catalogueView(s.store)).toEqual(before);
  });

  it('moves an id stored under another channel to the channel of the file, on either merge path', async () => {
    const t = (h: number) => `202604010${h}0000 +0000`;
    const programme = (channel: string, h: number, title: string) =>
      `<programme start="${t(h)}" stop="${t(h + 1)}" channel="${channel}"><title>${title}</title></programme>`;
    const doc = (...body: string[]) =>
      Buffer.from(`<tv><channel id="p.uk"><display-name>P</display-name></channel>
<channel id="q.uk"><display-name>Q</display-name></channel>${body.join('')}</tv>`);
    const q = channelIdFor('q.uk');
    // Ids are 63 bits of a hash, so such a clash does not happen by chance: made by hand.
    const clash = programmeIdFor(q, t(2));
    const cases = [
      { stored: [], merge: { programmesAdded: 1, programmesUpdated: 1, programmesUnchanged: 0 } },
      {
        stored: [programme('q.uk', 3, 'Q3')],
        merge: { programmesAdded: 0, programmesUpdated: 1, programmesUnchanged: 1 },
      },
    ];
    for (const [n, { stored, merge }] of cases.entries()) {
      await s.sql(`DELETE FROM programmes`);
      await run(s.store, doc(programme('p.uk', 1, 'P1'), ...stored), NOW + n);
      await s.sql(`UPDATE programmes SET id = '${clash}' WHERE title = 'P1'`);
      const summary = await run(
        s.store,
        doc(programme('q.uk', 2, 'Q2'), programme('q.uk', 3, 'Q3')),
      );
      expect(summary.merge).toMatchObject({ ...merge, programmesRemoved: 0 });
      const titles = async (id: string) =>
        (await s.store.catalogue.listProgrammes(id, { kind: 'all' })).map((p) => p.title);
      expect(await titles(q)).toEqual(['Q2', 'Q3']);
      expect(await titles(channelIdFor('p.uk'))).toEqual([]);
    }
  });

  it('keeps accounts, keys, usage, audit, links and sessions', async () => {
    const { accounts, signIn } = s.store;
    const ann = await accounts.createAccount(
      { email: ' Ann@Example.com ', verifiedAt: null, accessUntil: null, rateLimit: 5 },
      NOW,
    );
    await expect(
      accounts.createAccount(
        { email: 'ann@example.com', verifiedAt: null, accessUntil: null, rateLimit: null },
        NOW,
      ),
    ).rejects.toBeInstanceOf(DuplicateAccountError);
    expect(await accounts.findAccountByEmail('ANN@example.com')).toEqual(ann);
    expect(ann).toMatchObject({
      email: 'Ann@Example.com',
      rateLimit: 5,
      disabled: false,
      createdAt: NOW,
    });
    expect((await accounts.markVerified(ann.id, NOW + 1)).verifiedAt).toBe(NOW + 1);
    expect((await accounts.markVerified(ann.id, NOW + 2)).verifiedAt).toBe(NOW + 1);
    const changed = await accounts.updateAccount(
      ann.id,
      { accessUntil: NOW + DAY, disabled: true, rateLimit: null },
      NOW,
    );
    expect(changed).toMatchObject({ accessUntil: NOW + DAY, disabled: true, rateLimit: null });

    const key = await accounts.createApiKey(
      {
        accountId: ann.id,
        name: 'k',
        keyHash: `h-${engine}`,
        prefix: 'onair_abcd',
        lastFour: 'wxyz',
      },
      NOW,
    );
    expect(await accounts.findKeyOwner(`h-${engine}`)).toEqual({
      keyId: key.id,
      revoked: false,
      account: changed,
    });
    await accounts.markKeysUsed([{ keyId: key.id, at: NOW + 50 }]);
    await accounts.markKeysUsed([{ keyId: key.id, at: NOW + 10 }]);
    expect((await accounts.findApiKey(key.id))?.lastUsedAt).toBe(NOW + 50);
    expect((await accounts.revokeApiKey(key.id, NOW + 60))?.revokedAt).toBe(NOW + 60);
    expect((await accounts.findKeyOwner(`h-${engine}`))?.revoked).toBe(true);
    expect(await accounts.revokeApiKey('missing', NOW)).toBeNull();
    expect((await accounts.listApiKeys(ann.id)).map((k) => k.id)).toEqual([key.id]);

    const hour = Math.floor(NOW / 3_600_000) * 3_600_000;
    await accounts.addUsage([{ accountId: ann.id, hourStart: hour, requests: 4, limited: 1 }]);
    await accounts.addUsage([{ accountId: ann.id, hourStart: hour, requests: 2, limited: 0 }]);
    expect(await accounts.usageSince(ann.id, hour)).toEqual({ requests: 6, limited: 1 });

    for (const action of ['a', 'b', 'c']) {
      await accounts.recordAudit(
        { accountId: ann.id, actor: 'operator', action, details: { x: [1, 'é'] } },
        NOW,
      );
    }
    const audit = await accounts.listAudit(ann.id);
    expect(audit.map((e) => e.action)).toEqual(['a', 'b', 'c']);
    expect(audit[0]?.details).toEqual({ x: [1, 'é'] });

    await signIn.createLink(
      {
        tokenHash: `t-${engine}`,
        purpose: 'sign-in',
        email: 'ann@example.com',
        expiresAt: NOW + 100,
      },
      NOW,
    );
    expect(await signIn.findLink(`t-${engine}`, 'sign-in', NOW)).toEqual({
      email: 'ann@example.com',
    });
    expect(await signIn.consumeLink(`t-${engine}`, 'sign-in', NOW)).toEqual({
      email: 'ann@example.com',
    });
    expect(await signIn.consumeLink(`t-${engine}`, 'sign-in', NOW)).toBeNull();
    await signIn.createSession(`s-${engine}`, ann.id, NOW + 100, NOW);
    expect(await signIn.findSession(`s-${engine}`, NOW)).toEqual({
      accountId: ann.id,
      createdAt: NOW,
      expiresAt: NOW + 100,
    });
    expect(await signIn.findSession(`s-${engine}`, NOW + 100)).toBeNull();
    expect(await signIn.deleteAccountSessions(ann.id)).toBe(1);
    await s.store.ping();
  });
});

describe.runIf(ENGINES.includes('postgres'))('PostgreSQL search index', () => {
  it('answers a substring search from the trigram index of the folded names', async () => {
    const s = await openEngineStore('postgres', NOW);
    try {
      await run(s.store, guide('Day', 1));
      // One connection for both statements; small tables would be scanned otherwise.
      const client = await (s.store as PostgresStore).pool.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const plan = await client.query(
          "EXPLAIN SELECT id FROM channels WHERE name_folded LIKE '%lumi%' ORDER BY name_key LIMIT 200",
        );
        expect(JSON.stringify(plan.rows)).toContain('channels_name_trigrams');
      } finally {
        client.release(true);
      }
    } finally {
      await s.dispose();
    }
  });
});

describe.runIf(ENGINES.length > 1)('both engines give the same answers', () => {
  const stores: EngineStore[] = [];
  const summaries: IngestSummary[][] = [];
  beforeAll(async () => {
    for (const engine of ENGINES) {
      const s = await openEngineStore(engine, NOW);
      stores.push(s);
      const done: IngestSummary[] = [];
      for (const name of [
        'basic.xml',
        'messy.xml',
        'unsorted.xml',
        'latin1.xml',
        'entities-dtd.xml',
      ]) {
        done.push(await run(s.store, fixturePath(name)));
      }
      done.push(await run(s.store, fixturePath('messy.xml'), NOW + DAY, 'IE'));
      // Real guides with their quirks (see the corpus's SOURCES.md).
      for (const name of ['mjh_plex_fr.xml.gz', 'akkradet_th_guide.xml.gz', 'mjh_dstv_za.xml.gz']) {
        done.push(await run(s.store, join(CORPUS, name), NOW + 2 * DAY));
      }
      summaries.push(done);
    }
  });
  afterAll(async () => {
    for (const s of stores) await s.dispose();
  });

  it('for ingest summaries and every list a customer can read', async () => {
    const strip = (list: IngestSummary[]) =>
      list.map(({ sourceFileId, durationMs, ...rest }) => ({
        ...rest,
        sourceFileId: sourceFileId.length,
        durationMs: typeof durationMs,
      }));
    const [first, ...others] = summaries;
    for (const other of others) expect(strip(other)).toEqual(strip(first ?? []));
    const views = await Promise.all(stores.map((s) => catalogueView(s.store)));
    expect(views[0]?.channels.length).toBeGreaterThan(3);
    for (const view of views.slice(1)) expect(view).toEqual(views[0]);
    for (const needle of ['e', 'télé', 'one', 'x']) {
      const results = await Promise.all(
        stores.map((s) => s.store.catalogue.searchChannels(needle, null, 200)),
      );
      for (const r of results.slice(1)) expect(r).toEqual(results[0]);
    }
  });
});
