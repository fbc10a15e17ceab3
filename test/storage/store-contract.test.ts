import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PLAYGROUND_XMLTV_IDS } from '../../src/catalogue/demo-catalogue.js';
import { ingestXmltv, type IngestSummary } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { programmeIdFor } from '../../src/domain/programme-id.js';
import {
  compareSearchKeys,
  searchTermsOf,
  searchWordsOf,
} from '../../src/domain/programme-search.js';
import { nameSortKey } from '../../src/domain/search-folding.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import type { ProgrammeSearch } from '../../src/storage/catalogue-reader.js';
import {
  DuplicateAccountError,
  DuplicateSourceError,
  FeedLimitError,
} from '../../src/storage/errors.js';
import type { NewFeed } from '../../src/storage/feed-store.js';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../src/storage/postgres/postgres-store.js';
import { OTHER_PROCESS_CHECK_MS } from '../../src/storage/sqlite/data-versions.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import {
  connectPostgresClient,
  createPostgresPool,
  migratePostgres,
} from '../../src/storage/postgres/database.js';
import { createPostgresCatalogueWriter } from '../../src/storage/postgres/ingest-session.js';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import { POSTGRES_MERGE } from '../../src/storage/postgres/postgres-merge-dialect.js';
import { createPostgresCatalogueReader } from '../../src/storage/postgres/catalogue-reader.js';
import {
  createPipelinedConnections,
  type QueryConnections,
} from '../../src/storage/postgres/pipelined-connections.js';
import { migrateSqlite, openSqliteDatabase } from '../../src/storage/sqlite/database.js';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations.js';
import type { SourceRefreshState } from '../../src/storage/source-store.js';
import type { Store } from '../../src/storage/store.js';
import {
  ENGINES,
  freshPostgresDatabase,
  openEngineStore,
  TEST_POSTGRES_URL,
  type EngineStore,
} from '../helpers/engines.js';
import { fixturePath, NOW } from '../ingest/ingest-helpers.js';
import { searchWhole } from '../helpers/search-whole.js';

const DAY = 86_400_000;
const CORPUS =
  process.env.ONAIR_CORPUS_DIR ?? join(import.meta.dirname, '../fixtures/xmltv/corpus');

/** Everything a customer can read of a catalogue, through the Store interface only. */
async function catalogueView(store: Store) {
  const countries = await store.catalogue.listCountries();
  const channels = [];
  for (const { country } of countries)
    channels.push(...(await store.catalogue.listChannels(country)));
  const programmes: Record<string, unknown[]> = {};
  for (const channel of channels) {
    programmes[channel.id] = (await store.catalogue.listProgrammes(channel.id)).map(
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
    // A whole schedule, in start order (which programmes a request gets is the domain's rule).
    expect((await store.catalogue.listProgrammes(a)).map((p) => p.title)).toEqual([
      'Day one',
      'Day two',
    ]);
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
    const titles = (await store.catalogue.listProgrammes(a)).map((p) => p.title);
    expect(titles).toEqual(['Day one', 'Day two', 'Next one', 'Next two']);
    expect((await store.catalogue.listChannels('GB')).map((c) => c.needsReview)).toEqual([
      false,
      false,
    ]);
  });

  // PostgreSQL alone: it refuses a NUL in a text (SQLite stores it), the one staged value that
  // makes its COPY fail; an XMLTV file never holds one (the reader refuses it first).
  it.runIf(engine === 'postgres')(
    'an ingest whose staged rows the database refuses fails whole, after its COPY began',
    async () => {
      await run(s.store, guide('Kept', 2));
      const before = await catalogueView(s.store);
      const session = await s.store.ingest.beginIngest();
      const channelId = channelIdFor('a.uk');
      for (let i = 0; i < 4_000; i++) {
        session.stageProgramme({
          channelId,
          start: formatXmltvUtc(NOW + i * 60_000),
          stop: formatXmltvUtc(NOW + (i + 1) * 60_000),
          startMs: NOW + i * 60_000,
          stopMs: NOW + (i + 1) * 60_000,
          title: i === 3_999 ? 'Nul \u0000 here' : `Programme ${i}`,
          desc: '',
          category: '',
          details: '',
          searchedTexts: ['Programme'],
          needsReview: false,
          line: i + 1,
        });
        if (i % 1_000 === 999) await session.drain().catch(() => undefined);
      }
      await expect(
        session.commit(
          {
            id: '00000000-0000-4000-8000-000000000001',
            source: 'broken.xml',
            country: null,
            sizeBytes: 0,
            sha256: '',
            ingestedAt: NOW,
            summary: {} as never,
          },
          {},
        ),
      ).rejects.toThrow(/0x00|null character|invalid byte/i);
      await session.abort();
      expect(await catalogueView(s.store)).toEqual(before);
    },
  );

  it('an ingest aborted while its programmes stream in leaves the catalogue as it was; their texts come back whole', async () => {
    await run(s.store, guide('Kept', 1));
    const before = await catalogueView(s.store);
    const channel = {
      id: channelIdFor('z.zz'),
      xmltvId: 'z.zz',
      name: 'Z',
      displayNames: [{ value: 'Z', lang: '' }],
      icon: '',
      country: 'ZZ',
      fallbackCountry: 'ZZ',
      declared: true,
    };
    // Texts with a tab, line breaks and backslashes: what a COPY's text format escapes.
    const programme = (i: number, title = `Tab\there,\nline \\ ${i}`) => ({
      channelId: channel.id,
      start: formatXmltvUtc(NOW + i * 60_000),
      stop: formatXmltvUtc(NOW + (i + 1) * 60_000),
      startMs: NOW + i * 60_000,
      stopMs: NOW + (i + 1) * 60_000,
      title,
      desc: 'A description\r\nover lines',
      category: '',
      details: '',
      searchedTexts: [title, 'A description\r\nover lines'],
      needsReview: false,
      line: i + 1,
    });
    // Enough programmes to send several chunks while staging, then an abort.
    const aborted = await s.store.ingest.beginIngest();
    aborted.stageChannel(channel);
    for (let i = 0; i < 5_000; i++) {
      aborted.stageProgramme(programme(i));
      if (i % 1_000 === 999) await aborted.drain();
    }
    await aborted.abort();
    expect(await catalogueView(s.store)).toEqual(before);

    // The same texts staged and merged come back as they were written.
    const kept = await s.store.ingest.beginIngest();
    kept.stageChannel(channel);
    for (let i = 0; i < 3; i++) kept.stageProgramme(programme(i));
    await kept.commit(
      {
        id: '00000000-0000-4000-8000-000000000002',
        source: 'kept.xml',
        country: null,
        sizeBytes: 0,
        sha256: '',
        ingestedAt: NOW,
        summary: {} as never,
      },
      {},
    );
    const stored = await s.store.catalogue.listProgrammes(channel.id);
    expect(stored.map((p) => [p.title, p.desc])).toEqual(
      [0, 1, 2].map((i) => [programme(i).title, programme(i).desc]),
    );
  });

  it('an aborted ingest leaves the catalogue as it was', async () => {
    const before = await catalogueView(s.store);
    const session = await s.store.ingest.beginIngest();
    session.stageChannel({
      id: channelIdFor('z.zz'),
      xmltvId: 'z.zz',
      name: 'Z',
      displayNames: [{ value: 'Z', lang: '' }],
      icon: '',
      country: 'ZZ',
      fallbackCountry: 'ZZ',
      declared: true,
    });
    await session.drain();
    await session.abort();
    expect(await catalogueView(s.store)).toEqual(before);
  });

  it('marks playground channels, and every change moves the catalogue version', async () => {
    const { playground } = s.store;
    const version = async () => (await s.store.versions()).catalogue;
    await run(s.store, guide('Day', 1));
    const a = channelIdFor('a.uk');
    const b = channelIdFor('b.fr');
    expect(await playground.listChannels()).toEqual([]);

    const v0 = await version();
    expect(await playground.add(a, NOW)).toBe('added');
    const v1 = await version();
    expect(v1).not.toBe(v0);
    expect(await playground.add(a, NOW)).toBe('already-marked');
    expect(await playground.add(channelIdFor('nope.zz'), NOW)).toBe('no-such-channel');
    expect(await playground.add(b, NOW)).toBe('added');
    // Name order (lower-cased code points), as the v1 lists.
    const byId = new Map(
      (await catalogueView(s.store)).channels.map((channel) => [channel.id, channel]),
    );
    expect(await playground.listChannels()).toEqual([byId.get(b), byId.get(a)]);

    const v2 = await version();
    expect(await playground.remove(a)).toBe(true);
    expect(await version()).not.toBe(v2);
    expect(await playground.remove(a)).toBe(false);
    expect((await playground.listChannels()).map((c) => c.id)).toEqual([b]);
    await playground.remove(b);
  });

  // Programmes are keyed by slot (channel, start): another channel's programme is its own.
  it('leaves an id stored under another channel with that channel, on either merge path', async () => {
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
      { stored: [], merge: { programmesAdded: 2, programmesUpdated: 0, programmesUnchanged: 0 } },
      {
        stored: [programme('q.uk', 3, 'Q3')],
        merge: { programmesAdded: 1, programmesUpdated: 0, programmesUnchanged: 1 },
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
        (await s.store.catalogue.listProgrammes(id)).map((p) => p.title);
      expect(await titles(q)).toEqual(['Q2', 'Q3']);
      expect(await titles(channelIdFor('p.uk'))).toEqual(['P1']);
    }
  });

  it('keeps one programme for a start that does not parse: unchanged again, updated in place', async () => {
    const doc = (title: string) =>
      Buffer.from(`<tv><channel id="u.uk"><display-name>U</display-name></channel>
<programme start="sometime" stop="20260401030000 +0000" channel="u.uk"><title>${title}</title></programme>
<programme start="20260401010000 +0000" stop="20260401020000 +0000" channel="u.uk"><title>Parsed</title></programme></tv>`);
    await s.sql(`DELETE FROM programmes`);
    await run(s.store, doc('Unparsed'), NOW);
    const same = await run(s.store, doc('Unparsed'), NOW + 1);
    expect(same.merge).toMatchObject({
      programmesAdded: 0,
      programmesUpdated: 0,
      programmesUnchanged: 2,
    });
    const changed = await run(s.store, doc('Renamed'), NOW + 2);
    expect(changed.merge).toMatchObject({
      programmesAdded: 0,
      programmesUpdated: 1,
      programmesUnchanged: 1,
      programmesRemoved: 0,
    });
    const stored = await s.store.catalogue.listProgrammes(channelIdFor('u.uk'));
    expect(stored.map((p) => p.title)).toEqual(['Parsed', 'Renamed']);
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

  it('moves the catalogue and auth versions exactly when what they cover changes', async () => {
    const { store } = s;
    // Another process (the CLI, another instance) writing to the same database.
    const other = await openSameStore(s);
    try {
      /** Which versions moved while `change` ran. */
      const moved = async (change: () => Promise<unknown>, by: Store = store) => {
        const before = await store.versions();
        await change();
        if (by !== store) await settle(store);
        const after = await store.versions();
        return {
          catalogue: after.catalogue !== before.catalogue,
          auth: after.auth !== before.auth,
        };
      };
      const neither = { catalogue: false, auth: false };
      const catalogue = { catalogue: true, auth: false };
      const auth = { catalogue: false, auth: true };

      expect(await moved(() => run(store, guide('Versions', 9)))).toEqual(catalogue);
      expect(await moved(() => run(other, guide('Elsewhere', 10)), other)).toEqual(catalogue);
      // An identical re-ingest still records its source file; caches are rebuilt, never stale.
      expect((await moved(() => run(store, guide('Elsewhere', 10)))).auth).toBe(false);
      expect(await moved(async () => undefined)).toEqual(neither);

      const bob = await moved(() =>
        store.accounts.createAccount(
          {
            email: `bob-${engine}@example.com`,
            verifiedAt: null,
            accessUntil: null,
            rateLimit: null,
          },
          NOW,
        ),
      );
      expect(bob).toEqual(auth);
      const id = (await store.accounts.findAccountByEmail(`bob-${engine}@example.com`))?.id ?? '';
      let keyId = '';
      expect(
        await moved(async () => {
          keyId = (
            await store.accounts.createApiKey(
              { accountId: id, name: 'v', keyHash: `v-${engine}`, prefix: 'p', lastFour: 'l' },
              NOW,
            )
          ).id;
        }),
      ).toEqual(auth);
      // Key use and usage counts are written all the time and decide nothing: no version moves.
      expect(await moved(() => store.accounts.markKeysUsed([{ keyId, at: NOW + 1 }]))).toEqual(
        neither,
      );
      expect(
        await moved(() =>
          store.accounts.addUsage([{ accountId: id, hourStart: 0, requests: 1, limited: 0 }]),
        ),
      ).toEqual(neither);
      expect(
        await moved(() => other.accounts.updateAccount(id, { disabled: true }, NOW), other),
      ).toEqual(auth);
      expect(await moved(() => store.accounts.markVerified(id, NOW))).toEqual(auth);
      expect(await moved(() => other.accounts.revokeApiKey(keyId, NOW), other)).toEqual(auth);
    } finally {
      await other.close();
    }
  });

  // Last, after every kind of merge above (first ingests, replacements, aborts, a refused one):
  // PostgreSQL keeps this without foreign keys (migration 14), so it is checked here.
  it('leaves no programme whose channel or source file is missing', async () => {
    expect(
      await s.sql(`SELECT p.id FROM programmes AS p
        LEFT JOIN channels AS c ON c.id = p.channel_id
        LEFT JOIN source_files AS f ON f.id = p.source_file_id
        WHERE c.id IS NULL OR f.id IS NULL`),
    ).toEqual([]);
    expect((await s.sql('SELECT count(*) AS n FROM programmes'))[0]?.n).not.toBe(0);
  });
});

/** The catalogue's schema cookie (SQLite): it moves with every change of its schema. */
async function catalogueSchemaVersion(db: SqliteStore['db']): Promise<number> {
  return Number(db.pragma('catalogue.schema_version', { simple: true }));
}

/**
 * A guide of `channels` channels (ids `prefix0.uk`, …) with `perChannel` half-hour programmes
 * each from `startMs`: "news" in every third, a word of its own (`only<i>`) in every 500th.
 */
function manyProgrammes(prefix: string, channels: number, perChannel: number, startMs: number) {
  const xml = ['<tv>'];
  const titles: { channel: string; startMs: number; title: string }[] = [];
  for (let c = 0; c < channels; c++) {
    xml.push(
      `<channel id="${prefix}${c}.uk"><display-name>${prefix} ${c}</display-name></channel>`,
    );
  }
  for (let c = 0; c < channels; c++) {
    for (let n = 0; n < perChannel; n++) {
      const at = startMs + n * 1_800_000;
      const i = c * perChannel + n;
      const title = `${['Morning news', 'Film', 'Quiz'][i % 3]} ${i % 500 === 0 ? `only${i} ` : ''}${prefix}`;
      titles.push({ channel: channelIdFor(`${prefix}${c}.uk`), startMs: at, title });
      xml.push(
        `<programme start="${formatXmltvUtc(at)}" stop="${formatXmltvUtc(at + 1_800_000)}" channel="${prefix}${c}.uk"><title>${title}</title></programme>`,
      );
    }
  }
  xml.push('</tv>');
  return { xml: Buffer.from(xml.join('\n')), titles };
}

/** The start of the late-index guides (manyProgrammes). */
const LATE_START = Date.UTC(2026, 5, 1);

/** What a paged search of `q` over the guides' 31 days finds, as `channel start title`, sorted. */
const titlesFound = async (store: Store, q: string) => {
  const terms = searchTermsOf(q);
  if (terms === null) throw new Error('blank');
  const found: string[] = [];
  let after: ProgrammeSearch['after'] = null;
  for (;;) {
    const search = {
      terms,
      country: null,
      channels: null,
      fromMs: LATE_START,
      toMs: LATE_START + 31 * DAY,
    };
    const hits = await searchWhole(store.catalogue, { ...search, after, limit: 200 });
    found.push(...hits.map((h) => `${h.channel.id} ${h.key.startMs} ${h.programme.title}`));
    if (hits.length < 200) return found.sort();
    after = hits.at(-1)?.key ?? null;
  }
};
/** What titlesFound should find of `word` among `titles`. */
const expectedTitles = (
  titles: { channel: string; startMs: number; title: string }[],
  word: string,
) =>
  titles
    .filter((t) => searchWordsOf(t.title).includes(word))
    .map((t) => `${t.channel} ${t.startMs} ${t.title}`)
    .sort();

describe.runIf(ENGINES.includes('sqlite'))('late indexes on SQLite', () => {
  it('are built after the rows only when a file brings more programmes than are stored, as the schema defines them', async () => {
    const s = await openEngineStore('sqlite', NOW);
    try {
      if (s.engine !== 'sqlite') throw new Error('not SQLite');
      const db = s.store.db;
      const indexes = () =>
        db
          .prepare(
            `SELECT name, sql FROM catalogue.sqlite_master
              WHERE type = 'index' AND tbl_name = 'programmes' ORDER BY name`,
          )
          .all();
      const defined = indexes();
      expect(defined.length).toBeGreaterThan(3);
      const schema = await catalogueSchemaVersion(db);

      // 6,000 programmes into an empty catalogue: the late path.
      const first = manyProgrammes('late', 6, 1_000, LATE_START);
      expect((await run(s.store, first.xml)).merge.programmesAdded).toBe(6_000);
      const afterFirst = await catalogueSchemaVersion(db);
      expect(afterFirst).toBeGreaterThan(schema);
      expect(indexes()).toEqual(defined);
      expect(db.pragma('catalogue.integrity_check', { simple: true })).toBe('ok');
      expect(await titlesFound(s.store, 'news')).toEqual(expectedTitles(first.titles, 'news'));
      expect(await titlesFound(s.store, 'only2500')).toEqual(
        expectedTitles(first.titles, 'only2500'),
      );

      // 5,000 more on new channels, fewer than stored: indexed row by row.
      const second = manyProgrammes('more', 5, 1_000, LATE_START);
      expect((await run(s.store, second.xml)).merge.programmesAdded).toBe(5_000);
      expect(await catalogueSchemaVersion(db)).toBe(afterFirst);
      // The first guide again, changed: an upsert, indexed row by row.
      const again = manyProgrammes('late', 6, 1_000, LATE_START + 900_000);
      const merged = await run(s.store, again.xml);
      expect(merged.merge.programmesAdded).toBe(6_000);
      expect(await catalogueSchemaVersion(db)).toBe(afterFirst);
      expect(db.pragma('catalogue.integrity_check', { simple: true })).toBe('ok');
      expect(await titlesFound(s.store, 'news')).toEqual(
        // Each channel's programme before the file's first start stays (the merge rules).
        expectedTitles(
          [
            ...first.titles.filter((t) => t.startMs === LATE_START),
            ...second.titles,
            ...again.titles,
          ],
          'news',
        ),
      );
    } finally {
      await s.dispose();
    }
  });

  it('are built after the rows in a catalogue in memory too', async () => {
    const store = openSqliteStore({ path: ':memory:', nowMs: NOW });
    try {
      const schema = await catalogueSchemaVersion(store.db);
      const cacheSize = store.db.pragma('cache_size', { simple: true });
      const guide = manyProgrammes('mem', 6, 1_000, LATE_START);
      expect((await run(store, guide.xml)).merge.programmesAdded).toBe(6_000);
      expect(await catalogueSchemaVersion(store.db)).toBeGreaterThan(schema);
      // The build's smaller page cache is the store's own connection's again.
      expect(store.db.pragma('cache_size', { simple: true })).toBe(cacheSize);
      expect(store.db.pragma('catalogue.integrity_check', { simple: true })).toBe('ok');
      expect(await titlesFound(store, 'news')).toEqual(expectedTitles(guide.titles, 'news'));
    } finally {
      await store.close();
    }
  });
});

describe.runIf(ENGINES.includes('postgres'))('late indexes on PostgreSQL', () => {
  it('are built after the rows only into a catalogue holding no programme, as the schema defines them', async () => {
    const s = await openEngineStore('postgres', NOW);
    try {
      if (s.engine !== 'postgres') throw new Error('not PostgreSQL');
      // Each index's definition and object id: an index dropped and built again has a new id.
      const indexes = async () =>
        (
          await s.sql(
            `SELECT i.indexname AS name, i.indexdef AS definition, c.oid::bigint AS oid,
                i.tablespace
              FROM pg_indexes AS i
              JOIN pg_class AS c ON c.relname = i.indexname
                AND c.relnamespace = to_regnamespace(i.schemaname)
              WHERE i.schemaname = current_schema()
                AND i.tablename IN ('programmes', 'search_texts')
              ORDER BY i.indexname`,
          )
        ).map((r) => ({
          name: r.name,
          definition: r.definition,
          tablespace: r.tablespace,
          oid: Number(r.oid),
        }));
      const definitions = (list: { name: unknown; definition: unknown; tablespace: unknown }[]) =>
        list.map(({ name, definition, tablespace }) => ({ name, definition, tablespace }));
      const rebuilt = (before: typeof defined, after: typeof defined) =>
        after
          .filter((a) => before.find((b) => b.name === a.name)?.oid !== a.oid)
          .map((a) => a.name);
      // An index an operator tuned keeps its storage parameter (and, in the next test, its
      // tablespace) when built again.
      await s.sql('ALTER INDEX programmes_in_search_order SET (fillfactor = 80)');
      const defined = await indexes();
      expect(defined.length).toBeGreaterThan(3);
      expect(JSON.stringify(defined)).toContain('fillfactor');

      // 6,000 programmes into an empty catalogue: the late path, the three out of file order
      // and the slot index (unique as before: a repeated slot is refused below); the two
      // partial ones, a few rows each, are kept up by the insert.
      const first = manyProgrammes('late', 6, 1_000, LATE_START);
      expect((await run(s.store, first.xml)).merge.programmesAdded).toBe(6_000);
      const afterFirst = await indexes();
      expect(definitions(afterFirst)).toEqual(definitions(defined));
      // And the texts' indexes, none being stored.
      expect(rebuilt(defined, afterFirst).sort()).toEqual([
        'programmes_by_channel_start',
        'programmes_by_search_text',
        'programmes_in_country_search_order',
        'programmes_in_search_order',
        'search_texts_by_words',
        'search_texts_words',
      ]);
      expect(await titlesFound(s.store, 'news')).toEqual(expectedTitles(first.titles, 'news'));
      expect(await titlesFound(s.store, 'only2500')).toEqual(
        expectedTitles(first.titles, 'only2500'),
      );

      const [stored] = await s.sql(
        `SELECT channel_id, start_ms, id FROM programmes WHERE start_ms IS NOT NULL LIMIT 1`,
      );
      await expect(
        s.sql(`INSERT INTO programmes (id, channel_id, start, stop, start_ms, title,
            description, category, needs_review, source_file_id, updated_at, search_words,
            search_text)
          VALUES ('${String(stored?.id)}', '${String(stored?.channel_id)}', '', '',
            ${Number(stored?.start_ms)}, 'again', '', '', false, 'f', 0, '', 0)`),
      ).rejects.toThrow(/programmes_by_channel_start/);

      // 7,000 more on new channels, more than stored but the catalogue holds some: row by row,
      // its readers never waiting for the merge.
      const second = manyProgrammes('more', 7, 1_000, LATE_START);
      expect((await run(s.store, second.xml)).merge.programmesAdded).toBe(7_000);
      expect(await indexes()).toEqual(afterFirst);
      expect(await titlesFound(s.store, 'news')).toEqual(
        expectedTitles([...first.titles, ...second.titles], 'news'),
      );
      const [count] = await s.sql('SELECT count(*)::int AS n FROM programmes');
      expect(count?.n).toBe(13_000);
    } finally {
      await s.dispose();
    }
  });

  // A tablespace is a directory the database server's own user owns: made here only where the
  // tests run as root beside a local server.
  const postgresUid = (() => {
    try {
      const line = readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('postgres:'));
      return line === undefined ? null : Number(line.split(':')[2]);
    } catch {
      return null;
    }
  })();
  const localServer = ['127.0.0.1', 'localhost'].includes(new URL(TEST_POSTGRES_URL).hostname);
  it.runIf(process.getuid?.() === 0 && postgresUid !== null && localServer)(
    'are built again in the tablespace they were in',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'onair-tablespace-'));
      chownSync(dir, postgresUid ?? 0, postgresUid ?? 0);
      const name = `onair_test_${process.pid}_${Date.now()}`;
      const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      try {
        await admin.query(`CREATE TABLESPACE ${name} LOCATION '${dir}'`);
        const s = await openEngineStore('postgres', NOW);
        try {
          await s.sql(`ALTER INDEX programmes_by_search_text SET TABLESPACE ${name}`);
          const placed = async () =>
            (
              await s.sql(
                `SELECT c.oid::bigint AS oid, i.tablespace FROM pg_indexes AS i
                  JOIN pg_class AS c ON c.relname = i.indexname
                  WHERE i.indexname = 'programmes_by_search_text'`,
              )
            )[0];
          const before = await placed();
          expect(before?.tablespace).toBe(name);
          const guide = manyProgrammes('ts', 6, 1_000, LATE_START);
          expect((await run(s.store, guide.xml)).merge.programmesAdded).toBe(6_000);
          const after = await placed();
          expect(after?.oid).not.toBe(before?.oid);
          expect(after?.tablespace).toBe(name);
        } finally {
          await s.dispose();
        }
      } finally {
        await admin.query(`DROP TABLESPACE IF EXISTS ${name}`).catch(() => {});
        await admin.end();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a reader waits for the merge; a merge cut after the drop leaves every index as it was', async () => {
    const s = await openEngineStore('postgres', NOW);
    const reader = await (s.store as PostgresStore).pool.connect();
    try {
      if (s.engine !== 'postgres') throw new Error('not PostgreSQL');
      const oids = async () =>
        (
          await s.sql(
            `SELECT c.relname AS name, c.oid::bigint AS oid FROM pg_class AS c
              JOIN pg_index AS i ON i.indexrelid = c.oid
              WHERE i.indrelid IN ('programmes'::regclass, 'search_texts'::regclass)
              ORDER BY c.relname`,
          )
        ).map((r) => `${String(r.name)} ${String(r.oid)}`);
      const before = await oids();
      // The merge that waits for the reader's lock on programmes, as its DROP INDEX must.
      const waiting = async () => {
        for (let i = 0; i < 500; i++) {
          const [row] = await s.sql(
            `SELECT l.pid FROM pg_locks AS l WHERE NOT l.granted
              AND l.relation = 'programmes'::regclass AND l.mode = 'AccessExclusiveLock'`,
          );
          if (row !== undefined) return Number(row.pid);
          await new Promise((done) => setTimeout(done, 20));
        }
        throw new Error('no merge waited for the lock');
      };
      const guide = manyProgrammes('late', 6, 1_000, LATE_START);

      // A reader in a transaction holds the merge back; the merge, cut then, leaves no trace.
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM programmes');
      const cut = run(s.store, guide.xml);
      const outcome = cut.then(
        () => 'committed',
        (error: unknown) => String(error),
      );
      await s.sql(`SELECT pg_terminate_backend(${await waiting()})`);
      expect(await outcome).toMatch(/terminat/i);
      await reader.query('COMMIT');
      expect(await oids()).toEqual(before);
      const [none] = await s.sql('SELECT count(*)::int AS n FROM programmes');
      expect(none?.n).toBe(0);

      // Again: a read asked once the merge has asked for the lock waits behind it, for all of it.
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM programmes');
      const ingest = run(s.store, guide.xml);
      await waiting();
      await reader.query('COMMIT');
      const reading = s.sql('SELECT count(*)::int AS n FROM programmes');
      await ingest;
      const [all] = await reading;
      expect(all?.n).toBe(6_000);
      expect(await oids()).not.toEqual(before);
      expect(await titlesFound(s.store, 'news')).toEqual(expectedTitles(guide.titles, 'news'));
    } finally {
      reader.release(true);
      await s.dispose();
    }
  });

  it('finds a search text by the hash of its words (migration 17), each text stored once', async () => {
    const s = await openEngineStore('postgres', NOW);
    try {
      if (s.engine !== 'postgres') throw new Error('not PostgreSQL');
      await run(s.store, guide('News at six', 1));
      await run(s.store, guide('Film', 2));
      // The same texts again, and one more: each stored once, found by the index.
      await run(s.store, guide('News at six', 3));
      const texts = await s.sql(
        'SELECT words, count(*)::int AS n FROM search_texts GROUP BY words',
      );
      expect(texts.length).toBeGreaterThan(1);
      for (const t of texts) expect(t.n).toBe(1);
      // The merge's lookup of a text (sameSearchText) can use the index.
      const client = new pg.Client({ connectionString: s.databaseUrl });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_seqscan = off');
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT t.id FROM search_texts AS t
            WHERE ${POSTGRES_MERGE.sameSearchText('t.words', "'news at six'")}`,
        );
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
          /Index Scan using search_texts_by_words/,
        );
      } finally {
        await client.query('ROLLBACK');
        await client.end();
      }
    } finally {
      await s.dispose();
    }
  });
});

describe.runIf(ENGINES.includes('postgres'))('the ingest connection on PostgreSQL', () => {
  it('plans its statements without JIT compilation, leaving other connections as they are', async () => {
    const database = await freshPostgresDatabase({ migrated: true });
    const clients: pg.Client[] = [];
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // New connections to this database compile with JIT, whatever the server's default.
      await admin.query(`ALTER DATABASE ${new URL(database.url).pathname.slice(1)} SET jit = on`);
      const writer = createPostgresCatalogueWriter(async () => {
        const client = await connectPostgresClient(database.url);
        clients.push(client);
        return client;
      });
      const setting = async (client: pg.Client) =>
        (await client.query<{ jit: string }>('SHOW jit')).rows[0]?.jit;
      const session = await writer.beginIngest();
      try {
        const [own] = clients;
        if (own === undefined) throw new Error('the session opened no connection');
        expect(await setting(own)).toBe('off');
        // The setting is the ingest's own: a reader's connection keeps the database's.
        const reader = await connectPostgresClient(database.url);
        clients.push(reader);
        expect(await setting(reader)).toBe('on');
      } finally {
        await session.abort();
      }
    } finally {
      await admin.end();
      await Promise.all(clients.slice(1).map((c) => c.end()));
      await database.drop();
    }
  });
});

/** A second store over the same database, as another process would open it. */
async function openSameStore(s: EngineStore): Promise<Store> {
  if (s.engine === 'sqlite') return openSqliteStore({ path: s.databaseUrl, nowMs: NOW });
  return openPostgresStore({ url: s.databaseUrl, nowMs: NOW });
}

/**
 * Waits until changes committed elsewhere are seen: on SQLite for the 1 ms another process's
 * commit may take to be noticed, on PostgreSQL until their notifications are in.
 */
async function settle(store: Store): Promise<void> {
  if (store.engine === 'postgres') await (store as PostgresStore).syncVersions();
  else await new Promise((resolve) => setTimeout(resolve, OTHER_PROCESS_CHECK_MS + 1));
}

describe.each(ENGINES)('guide reads: %s', (engine) => {
  let s: EngineStore;
  beforeAll(async () => {
    s = await openEngineStore(engine, NOW);
  });
  afterAll(async () => {
    await s?.dispose();
  });

  const H = 3_600_000;
  const base = Date.UTC(2026, 2, 1, 0, 0, 0);
  const at = (hours: number) => {
    const d = new Date(base + hours * H);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00 +0000`;
  };
  const programme = (channel: string, title: string, start: string, stop: string) =>
    `<programme start="${start}" stop="${stop}" channel="${channel}"><title>${title}</title></programme>`;

  it('searches programmes by their words, in order, in pages, and follows every ingest', async () => {
    const t = (h: number, m = 0) =>
      `20260310${String(h).padStart(2, '0')}${String(m).padStart(2, '0')}00 +0000`;
    const programme = (channel: string, h: number, inner: string) =>
      `<programme start="${t(h)}" stop="${t(h, 30)}" channel="${channel}">${inner}</programme>`;
    const xml = (extra: string) =>
      Buffer.from(`<tv>
<channel id="z.uk"><display-name>zulu TV</display-name></channel>
<channel id="a.uk"><display-name>Alpha</display-name></channel>
<channel id="f.fr"><display-name>Télé Été</display-name></channel>
${programme('z.uk', 6, '<title>Star Trek</title><desc>Space, the final frontier.</desc>')}
${programme('a.uk', 6, '<title>Star Trekking</title>')}
${programme('f.fr', 6, '<title>Le Télé-Journal</title><sub-title>Édition spéciale</sub-title>')}
${programme('f.fr', 8, '<title>Cinéma</title><category>Drame</category><credits><actor>Zoë Ångström</actor></credits>')}
${programme('a.uk', 9, '<title>Stargate</title><desc>A star is born</desc>')}
${extra}
</tv>`);
    await run(s.store, xml(programme('a.uk', 10, '<title>Old news</title>')));
    const base = Date.UTC(2026, 2, 10);
    const search = (q: string, more: Partial<ProgrammeSearch> = {}) => {
      const terms = searchTermsOf(q);
      if (terms === null) throw new Error('blank');
      return searchWhole(s.store.catalogue, {
        terms,
        country: null,
        channels: null,
        fromMs: base,
        toMs: base + DAY,
        after: null,
        limit: 50,
        ...more,
      }).then((hits) => hits.map((h) => `${h.channel.name}: ${h.programme.title}`));
    };
    // Every word as a word, the last also as a prefix; case and accents ignored.
    expect(await search('star trek')).toEqual(['Alpha: Star Trekking', 'zulu TV: Star Trek']);
    // "trek" must be a whole word: not "Trekking".
    expect(await search('trek star')).toEqual(['zulu TV: Star Trek']);
    expect(await search('STAR')).toEqual([
      'Alpha: Star Trekking',
      'zulu TV: Star Trek',
      'Alpha: Stargate',
    ]);
    expect(await search('trekking star trek')).toEqual(['Alpha: Star Trekking']);
    expect(await search('tre star')).toEqual([]);
    // Sub-titles, descriptions, categories and credits' names are searched too.
    expect(await search('edition tele')).toEqual(['Télé Été: Le Télé-Journal']);
    expect(await search('FRONTIER')).toEqual(['zulu TV: Star Trek']);
    expect(await search('drame')).toEqual(['Télé Été: Cinéma']);
    expect(await search('angstrom zoe')).toEqual(['Télé Été: Cinéma']);
    // Filters and pages.
    expect(await search('star', { country: 'UK', fromMs: base + 7 * 3_600_000 })).toEqual([
      'Alpha: Stargate',
    ]);
    expect(await search('star', { channels: [channelIdFor('z.uk')] })).toEqual([
      'zulu TV: Star Trek',
    ]);
    expect(await search('star', { toMs: base + 6 * 3_600_000 })).toEqual([]);
    const first = await s.store.catalogue.searchProgrammes({
      terms: { words: [], prefix: 'star' },
      country: null,
      channels: null,
      fromMs: base,
      toMs: base + DAY,
      after: null,
      limit: 1,
    });
    expect(await search('star', { after: first[0]?.key ?? null, limit: 1 })).toEqual([
      'zulu TV: Star Trek',
    ]);
    // A changed title, a dropped programme and a new one are searched as the ingest left them.
    expect(await search('news')).toEqual(['Alpha: Old news']);
    await run(s.store, xml(programme('a.uk', 11, '<title>Late news</title>')));
    expect(await search('news')).toEqual(['Alpha: Late news']);
    await run(
      s.store,
      Buffer.from(
        xml(programme('a.uk', 11, '<title>Late headlines</title>'))
          .toString()
          .replace('Stargate', 'Gate'),
      ),
    );
    expect(await search('news')).toEqual([]);
    expect(await search('stargate')).toEqual([]);
    expect(await search('gate')).toEqual(['Alpha: Gate']);
  });

  it("reads a search's programmes whole as found, and none that an ingest changed or removed since", async () => {
    const t = (h: number) => `20260320${String(h).padStart(2, '0')}0000 +0000`;
    const guideOf = (...titles: string[]) =>
      Buffer.from(`<tv>
<channel id="v.uk"><display-name>Versions</display-name></channel>
${titles.map((title, h) => `<programme start="${t(h + 6)}" stop="${t(h + 7)}" channel="v.uk"><title>${title}</title><desc>Take ${h}</desc></programme>`).join('\n')}
</tv>`);
    await run(s.store, guideOf('Encore one', 'Encore two', 'Encore three'));
    const search: ProgrammeSearch = {
      terms: { words: [], prefix: 'encore' },
      country: null,
      channels: null,
      fromMs: Date.UTC(2026, 2, 20),
      toMs: Date.UTC(2026, 2, 21),
      after: null,
      limit: 10,
    };
    const hits = await s.store.catalogue.searchProgrammes(search);
    expect(hits.map((h) => h.programme)).toEqual(
      hits.map((h) => ({
        id: h.key.id,
        sourceFileId: expect.any(String),
        needsReview: false,
        updatedAt: expect.any(String),
      })),
    );
    const whole = await s.store.catalogue.programmesFound(hits);
    expect(whole.map((p) => [p?.channelId, p?.programme.title, p?.programme.desc])).toEqual([
      [channelIdFor('v.uk'), 'Encore one', 'Take 0'],
      [channelIdFor('v.uk'), 'Encore two', 'Take 1'],
      [channelIdFor('v.uk'), 'Encore three', 'Take 2'],
    ]);
    expect(whole.map((p) => p?.programme)).toEqual(
      hits.map((h) => expect.objectContaining(h.programme)),
    );
    expect(await s.store.catalogue.programmesFound([])).toEqual([]);
    // The second retitled and the third dropped by a later guide: the hits found before name
    // versions no longer stored; the first, unchanged, is read as before.
    await run(s.store, guideOf('Encore one', 'Encore 2'), NOW + 60_000);
    await settle(s.store);
    const after = await s.store.catalogue.programmesFound(hits);
    expect(after.map((p) => p?.programme.title ?? null)).toEqual(['Encore one', null, null]);
  });

  it('keeps each search text once, pointed at by its programmes, and drops those left unused', async () => {
    const t = (day: number, h: number) =>
      `202606${String(day).padStart(2, '0')}${String(h).padStart(2, '0')}0000 +0000`;
    const programme = (channel: string, day: number, h: number, title: string) =>
      `<programme start="${t(day, h)}" stop="${t(day, h + 1)}" channel="${channel}"><title>${title}</title></programme>`;
    const xml = (...programmes: string[]) =>
      Buffer.from(`<tv>
<channel id="r1.uk"><display-name>Repeats One</display-name></channel>
<channel id="r2.uk"><display-name>Repeats Two</display-name></channel>
${programmes.join('\n')}
</tv>`);
    const texts = async () =>
      (
        await s.sql(`SELECT t.words,
            (SELECT count(*) FROM programmes AS p WHERE p.search_text = t.id) AS shown
          FROM search_texts AS t WHERE t.words LIKE '%rerun%' ORDER BY t.words`)
      ).map((r) => `${String(r['words'])} ×${Number(r['shown'])}`);
    // Every programme points at the text of its own words (here its title's, in lower case:
    // SQLite does not keep the words in the programme's row).
    const astray = async () =>
      Number(
        (
          await s.sql(`SELECT count(*) AS n FROM programmes AS p
            LEFT JOIN search_texts AS t ON t.id = p.search_text
            WHERE t.words IS NULL OR t.words <> lower(p.title)`)
        )[0]?.['n'],
      );
    const day1 = Date.UTC(2026, 5, 1);
    const at = (ms: number) =>
      ingestXmltv(
        s.store.ingest,
        {
          name: 'guide.xml',
          data: xml(
            programme('r1.uk', 1, 6, 'Rerun Classic'),
            programme('r1.uk', 1, 7, 'Rerun Classic'),
            programme('r2.uk', 1, 6, 'Rerun classic'),
            programme('r2.uk', 2, 6, ms === day1 ? 'Rerun Once' : 'Rerun Twice'),
          ),
        },
        { country: null, assumeOffsetMinutes: 0, nowMs: ms, retentionDays: 2 },
      );
    await at(day1);
    // Three programmes say the same words (case is not a word's): one text.
    expect(await texts()).toEqual(['rerun classic ×3', 'rerun once ×1']);
    expect(await astray()).toBe(0);
    // The words in the programme's row too where searches read them there (PostgreSQL's walks),
    // not on SQLite, whose searches read them from search_texts.
    const rowsWithWords = await s.sql(
      `SELECT count(*) AS n FROM programmes WHERE search_words = lower(title)`,
    );
    expect(Number(rowsWithWords[0]?.['n'])).toBe(s.engine === 'postgres' ? 4 : 0);
    // A changed title points at another text; the one it left is dropped.
    await at(day1 + 1);
    expect(await texts()).toEqual(['rerun classic ×3', 'rerun twice ×1']);
    // Pruned (two days' retention, three days on): the first day's programmes and their text go.
    await at(day1 + 3 * DAY);
    expect(await texts()).toEqual(['rerun twice ×1']);
    expect(await astray()).toBe(0);
  });

  it('drops the search text of a programme the file no longer has, and keeps those still shown', async () => {
    const t = (h: number) => `20260601${String(h).padStart(2, '0')}0000 +0000`;
    const guide = (...titles: string[]) =>
      Buffer.from(`<tv>
<channel id="d1.uk"><display-name>Dropping One</display-name></channel>
${titles.map((title, h) => `<programme start="${t(h + 6)}" stop="${t(h + 7)}" channel="d1.uk"><title>${title}</title></programme>`).join('\n')}
</tv>`);
    const texts = async () =>
      (
        await s.sql(`SELECT t.words FROM search_texts AS t
          WHERE t.words LIKE '%dropped%' OR t.words LIKE '%kept%' ORDER BY t.words`)
      ).map((r) => String(r['words']));
    const ingest = (data: Buffer) =>
      ingestXmltv(
        s.store.ingest,
        { name: 'guide.xml', data },
        { country: null, assumeOffsetMinutes: 0, nowMs: Date.UTC(2026, 5, 1) },
      );
    await ingest(guide('Kept Show', 'Dropped Show', 'Kept Show'));
    expect(await texts()).toEqual(['dropped show', 'kept show']);
    // The same first start and only the 06:00 programme: 07:00 and 08:00 are removed, and the
    // text only 07:00 had goes with them; 06:00 keeps the other.
    const summary = await ingest(guide('Kept Show'));
    expect(summary.merge.programmesRemoved).toBe(2);
    expect(await texts()).toEqual(['kept show']);
  });

  it('answers every plan (index, walks, country, channels, pages) as a reading of all programmes would', async () => {
    // A catalogue for every way of the plan: 12 channels in three countries, whose names sort
    // otherwise than their ids, starting programmes together every half hour for four days
    // (2,304 in the window), "news" in every third, "show" in all (more than the last count's
    // cap: walked), "sport" in 5,600 programmes of the week before (more than the cap, few in
    // the window: the walk does not fill, the index answers), a word of its own in some (a long
    // prefix is read by its first letters, or whole when they begin many words). Each
    // query's pages, followed to the end, must equal the programmes a plain reading finds, in
    // order.
    const start = Date.UTC(2026, 4, 1);
    const names = ['zulu', 'Alpha', 'beta', 'Écho', 'delta', 'Charlie', 'x-ray', 'Bravo'];
    const channels = Array.from({ length: 12 }, (_, c) => ({
      xmltvId: `ch${c}.${['uk', 'fr', 'de'][c % 3]}`,
      name: `${names[c % names.length]} ${c % 5}`,
      country: ['UK', 'FR', 'DE'][c % 3] ?? 'UK',
    }));
    interface Stored {
      channelId: string;
      nameKey: string;
      country: string;
      startMs: number;
      id: string;
      title: string;
      words: string[];
    }
    const stored: Stored[] = [];
    const xml: string[] = ['<tv>'];
    for (const c of channels) {
      xml.push(`<channel id="${c.xmltvId}"><display-name>${c.name}</display-name></channel>`);
    }
    const add = (c: (typeof channels)[number], startMs: number, stopMs: number, title: string) => {
      const channelId = channelIdFor(c.xmltvId);
      const startText = formatXmltvUtc(startMs);
      xml.push(
        `<programme start="${startText}" stop="${formatXmltvUtc(stopMs)}" channel="${c.xmltvId}"><title>${title}</title></programme>`,
      );
      stored.push({
        channelId,
        nameKey: nameSortKey(c.name),
        country: c.country,
        startMs,
        id: programmeIdFor(channelId, startText),
        title,
        words: searchWordsOf(title),
      });
    };
    channels.forEach((c, n) => {
      for (let slot = 0; slot < 4 * 48; slot++) {
        const at = start + slot * 1_800_000;
        const i = slot * channels.length + n;
        const kind = ['News at noon', 'Film', 'Evening newsreel'][(slot + n) % 3];
        const extra =
          i % 97 === 0 ? ` rare${i}` : i % 500 === 7 ? ' sport' : i % 400 === 11 ? ' zebras' : '';
        add(c, at, at + 1_800_000, `${kind}${extra} show ${i}`);
      }
    });
    for (let i = 0; i < 5_600; i++) {
      const c = channels[i % channels.length] ?? channels[0];
      if (c === undefined) throw new Error('no channel');
      const at = start - 7 * DAY + i * 60_000;
      add(c, at, at + 60_000, `Sport show ${i}`);
    }
    xml.push('</tv>');
    const schemaBefore = s.engine === 'sqlite' ? await catalogueSchemaVersion(s.store.db) : 0;
    await run(s.store, Buffer.from(xml.join('\n')));
    // More programmes than were stored: SQLite built its indexes out of file order after the
    // rows (LateIndexes in merge-steps.ts), so every plan below reads indexes built that way.
    if (s.engine === 'sqlite') {
      expect(await catalogueSchemaVersion(s.store.db)).toBeGreaterThan(schemaBefore);
    }
    // PostgreSQL plans from the word index's statistics (of the texts since migration 15), as
    // autovacuum gathers them: without them every search would read the index, none walk.
    if (s.engine === 'postgres') await s.sql('ANALYZE search_texts, programmes');

    const expected = (search: Omit<ProgrammeSearch, 'after' | 'limit'>) => {
      const { words, prefix } = search.terms;
      return stored
        .filter(
          (p) =>
            p.startMs >= search.fromMs &&
            p.startMs < search.toMs &&
            (search.country === null || p.country === search.country) &&
            (search.channels === null || search.channels.includes(p.channelId)) &&
            words.every((w) => p.words.includes(w)) &&
            p.words.some((w) => w.startsWith(prefix)),
        )
        .sort((a, b) =>
          compareSearchKeys(
            { startMs: a.startMs, nameKey: a.nameKey, id: a.id },
            { startMs: b.startMs, nameKey: b.nameKey, id: b.id },
          ),
        )
        .map((p) => `${p.startMs} ${p.nameKey}: ${p.title}`);
    };
    const pages = async (search: Omit<ProgrammeSearch, 'after' | 'limit'>, limit: number) => {
      const found: string[] = [];
      let after: ProgrammeSearch['after'] = null;
      for (let page = 0; page < 60; page++) {
        const hits = await searchWhole(s.store.catalogue, { ...search, after, limit });
        for (const hit of hits) {
          found.push(`${hit.key.startMs} ${hit.key.nameKey}: ${hit.programme.title}`);
        }
        if (hits.length < limit) return found;
        after = hits.at(-1)?.key ?? null;
      }
      return found;
    };
    const uk = channels.filter((c) => c.country === 'UK').map((c) => channelIdFor(c.xmltvId));
    const searches: [string, Partial<ProgrammeSearch>, number][] = [
      ['show', {}, 25],
      ['show', { country: 'FR' }, 50],
      ['show', { channels: uk.slice(1, 3) }, 50],
      ['show new', { country: 'DE', fromMs: start + 2 * DAY + 1 }, 30],
      ['news', {}, 25],
      ['news', { country: 'FR' }, 25],
      ['news', { channels: uk.slice(0, 2) }, 25],
      ['evening newsr', {}, 40],
      ['noon new', { country: 'DE' }, 30],
      ['sport', {}, 7],
      ['sport', { country: 'UK', toMs: start + 2 * DAY }, 3],
      ['rare1067', {}, 5],
      ['zebras', {}, 2],
      ['rare', {}, 9],
      ['film', { fromMs: start + 3 * DAY + 1_800_000 }, 50],
      ['f', { country: 'UK', fromMs: start + 3 * DAY }, 50],
      ['nothing', {}, 5],
    ];
    for (const [q, more, limit] of searches) {
      const terms = searchTermsOf(q);
      if (terms === null) throw new Error('blank');
      const search = {
        terms,
        country: null,
        channels: null,
        fromMs: start,
        toMs: start + 4 * DAY,
        ...more,
      };
      const want = expected(search);
      if (q !== 'nothing') expect(want.length, q).toBeGreaterThan(0);
      // Up to a few hundred results are followed page by page; the first pages of more.
      const got = await pages(search, limit);
      expect(got, `${q} ${JSON.stringify(more)}`).toEqual(want.slice(0, 60 * limit));
    }

    // First pages from many times of the window: a walk starts after the start times earlier
    // walks of the same search found without a match (SQLite keeps them per catalogue
    // version), and must find what a plain reading does.
    const firstPagesOverTime = async (q: string, more: Partial<ProgrammeSearch>) => {
      const terms = searchTermsOf(q);
      if (terms === null) throw new Error('blank');
      for (let k = 0; k < 40; k++) {
        const search = {
          terms,
          country: null,
          channels: null,
          fromMs: start + k * 2_400_000 + (k % 7) * 60_000,
          toMs: start + 4 * DAY,
          ...more,
        };
        const got = (
          await searchWhole(s.store.catalogue, { ...search, after: null, limit: 5 })
        ).map((hit) => `${hit.key.startMs} ${hit.key.nameKey}: ${hit.programme.title}`);
        expect(got, `${q} ${JSON.stringify(more)} from ${search.fromMs}`).toEqual(
          expected(search).slice(0, 5),
        );
      }
    };
    await firstPagesOverTime('show', {});
    await firstPagesOverTime('sport', {});
    await firstPagesOverTime('sport', { country: 'UK' });

    // The guide again, its first day retitled: its first half loses "show" and gains "sport"
    // (start times a walk of "sport" found without it), its second half gains "showtime". A
    // walk tests what it reads as of the catalogue after the ingest: SQLite keeps the words'
    // matching texts, and both engines the start times walks found empty, per catalogue
    // version. Then the guide as it first was: "show" is back where a walk of the version
    // before found none.
    const original = new Map(stored.map((p) => [p, p.title]));
    const ingestWindow = async (titleOf: (p: Stored, n: number) => string) => {
      const xml = ['<tv>'];
      for (const c of channels) {
        xml.push(`<channel id="${c.xmltvId}"><display-name>${c.name}</display-name></channel>`);
      }
      let n = 0;
      for (const p of stored.filter((p) => p.startMs >= start)) {
        const c = channels.find((c) => channelIdFor(c.xmltvId) === p.channelId);
        if (c === undefined) throw new Error('no channel');
        p.title = titleOf(p, n++);
        p.words = searchWordsOf(p.title);
        xml.push(
          `<programme start="${formatXmltvUtc(p.startMs)}" stop="${formatXmltvUtc(p.startMs + 1_800_000)}" channel="${c.xmltvId}"><title>${p.title}</title></programme>`,
        );
      }
      xml.push('</tv>');
      await run(s.store, Buffer.from(xml.join('\n')));
    };
    const originalTitle = (p: Stored) => original.get(p) ?? p.title;
    await ingestWindow((p, n) => {
      if (p.startMs >= start + DAY) return originalTitle(p);
      return p.startMs < start + DAY / 2 ? `Sport replay ${n}` : `News showtime ${n}`;
    });
    for (const q of ['show', 'news', 'showt']) {
      const terms = searchTermsOf(q);
      if (terms === null) throw new Error('blank');
      const search = { terms, country: null, channels: null, fromMs: start, toMs: start + 2 * DAY };
      expect(await pages(search, 50), `${q} after the second ingest`).toEqual(
        expected(search).slice(0, 60 * 50),
      );
    }
    await firstPagesOverTime('sport', {});
    await firstPagesOverTime('sport', { country: 'UK' });
    await firstPagesOverTime('show', {});
    await firstPagesOverTime('show', { country: 'FR' });
    await ingestWindow(originalTitle);
    await firstPagesOverTime('show', {});
    await firstPagesOverTime('show', { country: 'FR' });
  });

  it("orders and filters by the channel's name and country as they are now, after a rename or a move", async () => {
    const t = (h: number) => `20260601${String(h).padStart(2, '0')}0000 +0000`;
    const guideOf = (first: string) =>
      Buffer.from(`<tv>
<channel id="p.uk"><display-name>${first}</display-name></channel>
<channel id="q.uk"><display-name>Middle</display-name></channel>
<programme start="${t(6)}" stop="${t(7)}" channel="p.uk"><title>Morning news</title></programme>
<programme start="${t(6)}" stop="${t(7)}" channel="q.uk"><title>News hour</title></programme>
</tv>`);
    const search = (country: string | null) =>
      s.store.catalogue
        .searchProgrammes({
          terms: { words: [], prefix: 'news' },
          country,
          channels: null,
          fromMs: Date.UTC(2026, 5, 1),
          toMs: Date.UTC(2026, 5, 2),
          after: null,
          limit: 10,
        })
        .then((hits) => hits.map((h) => `${h.key.nameKey} ${h.channel.country}`));
    // Every programme's copies equal its channel's (what the order and filter read).
    const copiesDiffer = async () =>
      s.sql(`SELECT p.id FROM programmes AS p JOIN channels AS c ON c.id = p.channel_id
        WHERE p.channel_name_key <> c.name_key OR p.channel_country <> c.country`);
    await run(s.store, guideOf('Alpha'));
    expect(await search(null)).toEqual(['alpha UK', 'middle UK']);
    await run(s.store, guideOf('Zulu'));
    expect(await search(null)).toEqual(['middle UK', 'zulu UK']);
    await s.store.channels.fixChannel(channelIdFor('q.uk'), { country: 'IE', name: 'Quay' }, NOW);
    expect(await search('UK')).toEqual(['zulu UK']);
    expect(await search('IE')).toEqual(['quay IE']);
    expect(await search(null)).toEqual(['quay IE', 'zulu UK']);
    expect(await copiesDiffer()).toEqual([]);
  });

  it('finds the programmes of a window, long ones too, and each channel’s next', async () => {
    const xml = `<tv>
<channel id="a.uk"><display-name>A</display-name></channel>
<channel id="b.uk"><display-name>B</display-name></channel>
${programme('a.uk', 'marathon', at(-30), at(14))}
${programme('a.uk', 'long gone', at(-20), at(9))}
${programme('a.uk', 'overnight', at(4), at(11))}
${programme('a.uk', 'ends at from', at(9), at(10))}
${programme('a.uk', 'running', at(9.5), at(10.5))}
${programme('a.uk', 'zero', at(11), at(11))}
${programme('a.uk', 'starts at to', at(13), at(14))}
${programme('a.uk', 'unparsed stop', at(11.5), 'soon')}
${programme('b.uk', 'later', at(20), at(21))}
${programme('b.uk', 'no stop', at(22), '')}
</tv>`;
    await run(s.store, Buffer.from(xml));
    const a = channelIdFor('a.uk');
    const b = channelIdFor('b.uk');
    const c = s.store.catalogue;
    expect(
      (await c.findChannels([a, b, channelIdFor('nowhere')])).map((x) => x.name).sort(),
    ).toEqual(['A', 'B']);
    expect(await c.findChannels([])).toEqual([]);
    const window = await c.programmesBetween([a, b], base + 10 * H, base + 13 * H);
    expect([...window.keys()]).toEqual([a]);
    expect(window.get(a)?.map((p) => p.programme.title)).toEqual([
      'marathon',
      'overnight',
      'running',
      'zero',
    ]);
    expect(window.get(a)?.[0]).toMatchObject({
      channelId: a,
      startMs: base - 30 * H,
      stopMs: base + 14 * H,
      id: programmeIdFor(a, at(-30)),
      details: '',
    });
    const next = await c.programmesAfter([a, b, channelIdFor('nowhere')], base + 10 * H);
    expect(next.get(a)?.programme.title).toBe('zero');
    // A programme without a stop and none after it to end at (the merge ends one at the next
    // start of its channel) is never next.
    expect(next.get(b)?.programme.title).toBe('later');
    expect(next.size).toBe(2);
  });
});

describe.each(ENGINES)('migration 3 on %s', (engine) => {
  it('marks the demo preview channels a database already has, and only those', async () => {
    const demoIds = DEMO_PLAYGROUND_XMLTV_IDS.map(channelIdFor);
    const others = [channelIdFor('onair-one.uk'), channelIdFor('real.de')];
    const insert = (id: string) =>
      `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
         needs_review, created_at, updated_at)
       VALUES ('${id}', '${id}', 'N ${id}', 'n ${id}', 'n ${id}', '', 'UK',
         ${engine === 'sqlite' ? 0 : 'false'}, 0, 0)`;
    const rows: { channel_id: string }[] = [];
    if (engine === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'onair-migrate-'));
      const db = openSqliteDatabase(join(dir, 'onair.db'));
      try {
        migrateSqlite(
          db,
          NOW,
          SQLITE_MIGRATIONS.filter((m) => m.version <= 2),
        );
        for (const id of [...demoIds, ...others]) db.prepare(insert(id)).run();
        migrateSqlite(db, NOW);
        rows.push(...(db.prepare('SELECT channel_id FROM playground_channels').all() as never[]));
      } finally {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      }
    } else {
      await withPostgresAt(2, async (pool) => {
        for (const id of [...demoIds, ...others]) await pool.query(insert(id));
        await migratePostgres(pool, NOW);
        rows.push(...(await pool.query('SELECT channel_id FROM playground_channels')).rows);
      });
    }
    expect(rows.map((r) => r.channel_id).sort()).toEqual([...demoIds].sort());
  });
});

/** Runs `body` over a new database migrated up to `version`, then drops the database. */
async function withPostgresAt(
  version: number,
  body: (pool: pg.Pool, searchPool: QueryConnections) => Promise<void>,
): Promise<void> {
  const database = await freshPostgresDatabase();
  const pool = createPostgresPool({ url: database.url });
  const searchPool = createPipelinedConnections({
    url: database.url,
    planOnce: true,
    connections: 2,
    batch: 8,
  });
  try {
    await migratePostgres(
      pool,
      NOW,
      POSTGRES_MIGRATIONS.filter((m) => m.version <= version),
    );
    await body(pool, searchPool);
  } finally {
    await searchPool.end();
    await pool.end();
    await database.drop();
  }
}

/**
 * Runs `body` over a new database migrated up to `version` that holds channel `c0` and source
 * file `f1`, then drops the database.
 */
async function withOneChannelAt(
  version: number,
  body: (pool: pg.Pool, searchPool: QueryConnections) => Promise<void>,
): Promise<void> {
  await withPostgresAt(version, async (pool, searchPool) => {
    await pool.query(`INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon,
          country, needs_review, created_at, updated_at)
        VALUES ('c0', 'one.ie', 'One', 'one', 'one', '', 'IE', false, 0, 0);
        INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
          VALUES ('f1', 'guide.xml', 'IE', 10, 'abc', 0, '{}')`);
    await body(pool, searchPool);
  });
}

describe.runIf(ENGINES.includes('postgres'))('migration 9 on postgres', () => {
  it('gives each stored programme its search words, as an ingest would, and indexes them', async () => {
    await withOneChannelAt(8, async (pool, searchPool) => {
      await pool.query(`INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
          description, category, needs_review, source_file_id, updated_at, details)
        VALUES ('1', 'c0', '', '', ${NOW}, NULL, 'Télé News', 'The day', 'Current affairs', false,
          'f1', 0, ''),
          ('2', 'c0', '', '', NULL, NULL, '', '', '', false, 'f1', 0, '')`);
      await migratePostgres(pool, NOW);
      const { rows } = await pool.query('SELECT id, search_words FROM programmes ORDER BY id');
      expect(rows).toEqual([
        { id: '1', search_words: 'tele news the day current affairs' },
        { id: '2', search_words: '' },
      ]);
      const reader = createPostgresCatalogueReader(pool, searchPool);
      const hits = await searchWhole(reader, {
        terms: { words: ['tele'], prefix: 'curr' },
        country: 'IE',
        channels: null,
        fromMs: NOW,
        toMs: NOW + DAY,
        after: null,
        limit: 5,
      });
      expect(hits.map((h) => h.programme.title)).toEqual(['Télé News']);
    });
  });
});

describe.runIf(ENGINES.includes('postgres'))('migration 15 on postgres', () => {
  it('keeps each distinct search text once, indexed, each programme pointing at its own', async () => {
    await withOneChannelAt(14, async (pool, searchPool) => {
      // A description longer than a B-tree key may be (about 2.7 KB): its text is keyed by MD5.
      const long = Array.from({ length: 700 }, (_, i) => `w${i}`).join(' ');
      await pool.query(
        `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
          description, category, needs_review, source_file_id, updated_at, details, search_words,
          channel_name_key, channel_country)
        SELECT id, 'c0', '', '', ${NOW} + n * 60000, NULL, title, '', '', false, 'f1', 0, '',
          words, 'one', 'IE'
        FROM (VALUES ('1', 0, 'News at six', 'news at six'), ('2', 1, 'Film', 'film'),
          ('3', 2, 'News at six', 'news at six'), ('4', 3, 'Long', '${long}'))
          AS v (id, n, title, words)`,
      );
      await migratePostgres(pool, NOW);
      const { rows } = await pool.query<{ id: string; words: string }>(
        `SELECT p.id, t.words FROM programmes AS p JOIN search_texts AS t ON t.id = p.search_text
         ORDER BY p.id`,
      );
      expect(rows.map((r) => [r.id, r.words.slice(0, 12)])).toEqual([
        ['1', 'news at six'],
        ['2', 'film'],
        ['3', 'news at six'],
        ['4', 'w0 w1 w2 w3 '],
      ]);
      const texts = await pool.query('SELECT count(*)::int AS n FROM search_texts');
      expect(texts.rows).toEqual([{ n: 3 }]);
      const reader = createPostgresCatalogueReader(pool, searchPool);
      const search = (prefix: string) =>
        reader
          .searchProgrammes({
            terms: { words: [], prefix },
            country: 'IE',
            channels: null,
            fromMs: NOW,
            toMs: NOW + DAY,
            after: null,
            limit: 5,
          })
          .then((hits) => hits.map((h) => h.programme.id));
      expect(await search('six')).toEqual(['1', '3']);
      expect(await search('w699')).toEqual(['4']);
    });
  });
});

describe.each(ENGINES)('words folded again (catalogue 9, migration 16) on %s', (engine) => {
  // Stored before search folded letters no decomposition takes apart: "łodz live" and
  // "lodz live" become one text; "ørsted" becomes "orsted"; "news" stays.
  const before = [
    ['1', 'Łódź Live', 'łodz live'],
    ['2', 'Lodz Live', 'lodz live'],
    ['3', 'Ørsted', 'ørsted'],
    ['4', 'News', 'news'],
    // Words that become the same are kept once, where the first was (as an ingest makes them).
    ['5', 'Große grosse Straße', 'große grosse straße'],
  ] as const;
  const search = (q: string): ProgrammeSearch => ({
    terms: searchTermsOf(q) ?? { words: [], prefix: '' },
    country: null,
    channels: null,
    fromMs: NOW,
    toMs: NOW + DAY,
    after: null,
    limit: 10,
  });

  it('folds the stored words, merges the texts that become one, and searches find them', async () => {
    const found: Record<string, string[]> = {};
    let rows: { id: string; words: string; text: number }[] = [];
    let texts: string[] = [];
    const queries = ['lodz', 'Łódź live', 'orsted', 'ørs', 'news', 'strasse'];
    if (engine === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'onair-refold-'));
      const path = join(dir, 'onair.db');
      try {
        const old = openSqliteStore({ path, nowMs: NOW });
        old.db.exec(`INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon,
            country, needs_review, created_at, updated_at)
          VALUES ('c0', 'one.ie', 'One', 'one', 'one', '', 'IE', 0, 0, 0);
          INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
          VALUES ('f1', 'guide.xml', 'IE', 10, 'abc', 0, '{}')`);
        const text = old.db.prepare(
          'INSERT OR IGNORE INTO search_texts (words) VALUES (?) RETURNING id',
        );
        const idOf = old.db.prepare('SELECT id FROM search_texts WHERE words = ?').pluck();
        const insert = old.db.prepare(
          `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
             description, category, needs_review, source_file_id, updated_at, details,
             search_words, channel_name_key, channel_country, search_text)
           VALUES (?, 'c0', '', '', ?, NULL, ?, '', '', 0, 'f1', 0, '', ?, 'one', 'IE', ?)`,
        );
        before.forEach(([id, title, words], i) => {
          text.run(words);
          insert.run(id, NOW + i * 60_000, title, words, idOf.get(words));
        });
        old.db.pragma('catalogue.user_version = 8');
        await old.close();
        const store = openSqliteStore({ path, nowMs: NOW });
        try {
          rows = store.db
            .prepare('SELECT id, search_words AS words, search_text AS text FROM programmes')
            .all() as typeof rows;
          texts = store.db.prepare('SELECT words FROM search_texts').pluck().all() as string[];
          for (const q of queries) {
            const hits = await store.catalogue.searchProgrammes(search(q));
            found[q] = hits.map((h) => h.programme.id);
          }
        } finally {
          await store.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } else {
      await withOneChannelAt(15, async (pool, searchPool) => {
        for (const [i, [id, title, words]] of before.entries()) {
          await pool.query(
            `INSERT INTO search_texts (words) VALUES ($1)
             ON CONFLICT ((md5(words))) DO NOTHING`,
            [words],
          );
          await pool.query(
            `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
               description, category, needs_review, source_file_id, updated_at, details,
               search_words, channel_name_key, channel_country, search_text)
             SELECT $1, 'c0', '', '', $2, NULL, $3, '', '', false, 'f1', 0, '', $4, 'one',
               'IE', id FROM search_texts WHERE words = $4`,
            [id, NOW + i * 60_000, title, words],
          );
        }
        await migratePostgres(pool, NOW);
        rows = (
          await pool.query<{ id: string; words: string; text: number }>(
            'SELECT id, search_words AS words, search_text::int AS text FROM programmes',
          )
        ).rows;
        texts = (await pool.query<{ words: string }>('SELECT words FROM search_texts')).rows.map(
          (r) => r.words,
        );
        const reader = createPostgresCatalogueReader(pool, searchPool);
        for (const q of queries) {
          const hits = await reader.searchProgrammes(search(q));
          found[q] = hits.map((h) => h.programme.id);
        }
      });
    }
    rows.sort((a, b) => a.id.localeCompare(b.id));
    expect(rows.map((r) => [r.id, r.words])).toEqual([
      ['1', 'lodz live'],
      ['2', 'lodz live'],
      ['3', 'orsted'],
      ['4', 'news'],
      ['5', 'grosse strasse'],
    ]);
    // One text for the two that became the same; each programme points at its words.
    expect(rows[0]?.text).toBe(rows[1]?.text);
    expect(texts.sort()).toEqual(['grosse strasse', 'lodz live', 'news', 'orsted']);
    expect(found).toEqual({
      lodz: ['1', '2'],
      'Łódź live': ['1', '2'],
      orsted: ['3'],
      ørs: ['3'],
      news: ['4'],
      strasse: ['5'],
    });
  });
});

describe.each(ENGINES)('channel review and sources: %s', (engine) => {
  let s: EngineStore;
  beforeAll(async () => {
    s = await openEngineStore(engine, NOW);
  });
  afterAll(async () => {
    await s?.dispose();
  });

  it("keeps an operator's fix of a channel through later ingests", async () => {
    const store = s.store;
    await run(store, guide('Day', 1)); // a.uk → UK and b.fr → FR, both inferred
    const a = channelIdFor('a.uk');
    const b = channelIdFor('b.fr');
    expect((await store.channels.listChannels({ needsReview: true })).map((c) => c.id)).toEqual([
      b,
      a,
    ]);
    expect(await store.channels.findChannel('a.uk')).toMatchObject({
      id: a,
      xmltvId: 'a.uk',
      country: 'UK',
      needsReview: true,
      nameFixed: false,
      countryFixed: false,
      reviewedAt: null,
    });
    expect(await store.channels.findChannel(a)).toMatchObject({ xmltvId: 'a.uk' });
    expect(await store.channels.findChannel('nope')).toBeNull();
    expect(
      await store.channels.fixChannel(channelIdFor('nope'), { country: 'GB' }, NOW),
    ).toBeNull();

    const fixed = await store.channels.fixChannel(a, { country: 'GB', name: 'Anglia' }, NOW + 1);
    expect(fixed).toMatchObject({
      country: 'GB',
      name: 'Anglia',
      needsReview: false,
      nameFixed: true,
      countryFixed: true,
      updatedAt: NOW + 1,
    });
    const reviewed = await store.channels.fixChannel(b, { reviewed: true }, NOW + 2);
    expect(reviewed).toMatchObject({
      country: 'FR',
      needsReview: false,
      countryFixed: true,
      nameFixed: false,
      reviewedAt: NOW + 2,
    });
    // The fix is what customers see, and search finds the new name.
    expect(await store.catalogue.listChannels('GB')).toEqual([
      { id: a, name: 'Anglia', icon: '', country: 'GB', needsReview: false },
    ]);
    expect((await store.catalogue.searchChannels('anglia', null, 200)).map((c) => c.id)).toEqual([
      a,
    ]);

    // A later ingest with another country and the old names keeps both fixes; b's icon changes.
    const renamed = Buffer.from(
      guide('Day', 1).toString().replace('https://img.example/b.png', 'https://img.example/b2.png'),
    );
    const later = await run(store, renamed, NOW + DAY, 'IE');
    expect(later.merge.channelsUpdated).toBe(1);
    expect(await store.channels.findChannel(a)).toMatchObject({
      name: 'Anglia',
      country: 'GB',
      needsReview: false,
    });
    expect(await store.channels.findChannel(b)).toMatchObject({
      name: 'Télé Lumière',
      country: 'FR',
      icon: 'https://img.example/b2.png',
      needsReview: false,
    });
    // Without a country it changes nothing either, and an identical one counts no update.
    expect((await run(store, renamed, NOW + 2 * DAY)).merge.channelsUpdated).toBe(0);
    expect((await store.channels.listChannels({ country: 'IE' })).length).toBe(0);
    expect((await store.channels.listChannels({ needsReview: true })).length).toBe(0);
    expect((await store.channels.listChannels({})).map((c) => c.country)).toEqual(['FR', 'GB']);
  });

  it('lists channels whose schedule ends before a time, oldest end first', async () => {
    const store = s.store;
    const empty = Buffer.from(
      '<tv><channel id="e.de"><display-name>Leer</display-name></channel></tv>',
    );
    await run(store, empty, NOW + 3 * DAY);
    // a.uk and b.fr both end 2026-03-01 08:00: same end, then by country (FR, GB).
    const end = Date.UTC(2026, 2, 1, 8);
    const ends = await store.channels.listScheduleEnds(end + 1, {});
    expect(ends.map((c) => [c.xmltvId, c.latestEndMs, c.programmes])).toEqual([
      ['b.fr', end, 1],
      ['a.uk', end, 2],
    ]);
    expect(await store.channels.listScheduleEnds(end, {})).toEqual([]);
    const withEmpty = await store.channels.listScheduleEnds(end + 1, { includeEmpty: true });
    expect(withEmpty.map((c) => [c.xmltvId, c.latestEndMs])).toEqual([
      ['e.de', null],
      ['b.fr', end],
      ['a.uk', end],
    ]);
    expect(
      (await store.channels.listScheduleEnds(end + 1, { country: 'GB' })).map((c) => c.xmltvId),
    ).toEqual(['a.uk']);
  });

  it('adds, lists, claims, finishes and removes sources; one claim wins', async () => {
    const { sources } = s.store;
    const added = await sources.addSource(
      {
        location: 'https://guides.example/ie.xml.gz',
        country: 'IE',
        everyMs: 6 * 3_600_000,
        assumeOffsetMinutes: 60,
      },
      NOW,
    );
    expect(added).toMatchObject({
      location: 'https://guides.example/ie.xml.gz',
      country: 'IE',
      everyMs: 6 * 3_600_000,
      assumeOffsetMinutes: 60,
      createdAt: NOW,
      nextRunAt: NOW,
      failures: 0,
      lastAttemptAt: null,
      lastOutcome: null,
      etag: null,
      leaseHolder: null,
    });
    await expect(
      sources.addSource(
        {
          location: 'https://guides.example/ie.xml.gz',
          country: 'GB',
          everyMs: 1,
          assumeOffsetMinutes: 0,
        },
        NOW,
      ),
    ).rejects.toBeInstanceOf(DuplicateSourceError);
    const second = await sources.addSource(
      { location: '/srv/guides/de.xml', country: 'DE', everyMs: 3_600_000, assumeOffsetMinutes: 0 },
      NOW + 1,
    );
    expect((await sources.listSources()).map((x) => x.id)).toEqual([added.id, second.id]);

    // Many claims at once, from separate connections where the engine has them: one wins.
    const claim = { nowMs: NOW + 10, leaseMs: 60_000, onlyIfDue: true };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sources.claimSource(added.id, { ...claim, holder: `holder-${i}` }),
      ),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const holder = winners[0]?.leaseHolder ?? '';
    expect(winners[0]).toMatchObject({ lastAttemptAt: NOW + 10, leaseUntil: NOW + 60_010 });
    // Taken, even by a forced claim, until the lease runs out; renewing keeps it.
    expect(
      await sources.claimSource(added.id, { ...claim, holder: 'x', onlyIfDue: false }),
    ).toBeNull();
    expect(await sources.renewLease(added.id, 'x', NOW + 1e9)).toBe(false);
    expect(await sources.renewLease(added.id, holder, NOW + 120_000)).toBe(true);
    expect(
      await sources.claimSource(added.id, { ...claim, nowMs: NOW + 70_000, holder: 'x' }),
    ).toBeNull();

    const state: SourceRefreshState = {
      nextRunAt: NOW + 6 * 3_600_000,
      failures: 0,
      lastSuccessAt: NOW + 20,
      lastIngestAt: NOW + 20,
      lastStatus: 200,
      lastOutcome: 'ingested',
      lastError: null,
      etag: '"v1"',
      lastModified: 'Sun, 01 Mar 2026 06:00:00 GMT',
      contentSha256: 'ab'.repeat(32),
      sourceFileId: 'f1',
      channels: 9,
      programmes: 2070,
      latestEndMs: NOW + 7 * DAY,
    };
    expect(await sources.finishRefresh(added.id, 'x', state)).toBeNull();
    const finished = await sources.finishRefresh(added.id, holder, state);
    expect(finished).toMatchObject({ ...state, leaseHolder: null, leaseUntil: null });
    expect(await sources.findSource(added.id)).toEqual(finished);

    // Not due any more: a scheduled claim fails, a forced one (an operator's) succeeds.
    expect(
      await sources.claimSource(added.id, { ...claim, nowMs: NOW + 30, holder: 'y' }),
    ).toBeNull();
    expect(
      await sources.claimSource(added.id, {
        ...claim,
        nowMs: NOW + 30,
        holder: 'y',
        onlyIfDue: false,
      }),
    ).toMatchObject({ leaseHolder: 'y' });
    // A lease that ran out (its holder died) can be taken over.
    expect(
      await sources.claimSource(added.id, {
        ...claim,
        nowMs: NOW + 60_031,
        holder: 'z',
        onlyIfDue: false,
      }),
    ).toMatchObject({ leaseHolder: 'z' });

    expect(await sources.removeSource(added.id)).toBe(true);
    expect(await sources.removeSource(added.id)).toBe(false);
    expect(await sources.findSource(added.id)).toBeNull();
    expect(await sources.finishRefresh(added.id, 'z', state)).toBeNull();
  });

  it("records a source's health warning for one of the writers that read the same record", async () => {
    const { sources } = s.store;
    const added = await sources.addSource(
      { location: '/srv/guides/ie.xml', country: 'IE', everyMs: 3_600_000, assumeOffsetMinutes: 0 },
      NOW,
    );
    expect(added).toMatchObject({ warnedFlags: null, warnedAt: null });
    const none = { flags: null, at: null };
    // Many processes saw no warning and warn at once, from separate connections where the
    // engine has them: one records it.
    const first = { flags: 'overdue,last-refresh-failed', at: NOW + 5 };
    const results = await Promise.all(
      Array.from({ length: 12 }, () => sources.recordWarning(added.id, none, first)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await sources.findSource(added.id)).toMatchObject({
      warnedFlags: first.flags,
      warnedAt: NOW + 5,
    });
    // Only from the record as it stands: the same flags later, or none (forgotten).
    const later = { ...first, at: NOW + 3_600_005 };
    expect(await sources.recordWarning(added.id, none, later)).toBe(false);
    expect(await sources.recordWarning(added.id, { ...first, at: NOW }, later)).toBe(false);
    expect(await sources.recordWarning(added.id, first, later)).toBe(true);
    expect(await sources.recordWarning(added.id, first, none)).toBe(false);
    expect(await sources.recordWarning(added.id, later, none)).toBe(true);
    expect(await sources.findSource(added.id)).toMatchObject({ warnedFlags: null, warnedAt: null });
    expect(await sources.recordWarning('no-such-source', none, first)).toBe(false);
  });
});

describe.runIf(ENGINES.includes('postgres'))('PostgreSQL search index', () => {
  it('leaves no pending words in the GIN index after an ingest', async () => {
    const s = await openEngineStore('postgres', NOW);
    try {
      await run(s.store, guide('Day', 1));
      // The number of pending-list pages a cleanup moves: none left by the ingest.
      expect(
        await s.sql(`SELECT gin_clean_pending_list('search_texts_words'::regclass) AS pages`),
      ).toEqual([{ pages: 0 }]);
    } finally {
      await s.dispose();
    }
  });

  /** A store with guide('Day', 1) and search connections of its own, as the store makes them. */
  const dayStore = async (connections: number) => {
    const s = await openEngineStore('postgres', NOW);
    const searchPool = createPipelinedConnections({
      url: s.databaseUrl,
      planOnce: true,
      connections,
      batch: 8,
    });
    try {
      await run(s.store, guide('Day', 1));
    } catch (error) {
      await searchPool.end();
      await s.dispose();
      throw error;
    }
    return { s, searchPool };
  };

  it('plans each search statement once per connection, whatever its values', async () => {
    // One connection, so the statements it prepared can be read back on it.
    const { s, searchPool } = await dayStore(1);
    try {
      const reader = createPostgresCatalogueReader((s.store as PostgresStore).pool, searchPool);
      const search = (q: string, country: string | null, fromMs: number) =>
        searchWhole(reader, {
          terms: searchTermsOf(q) ?? { words: [], prefix: q },
          country,
          channels: null,
          fromMs,
          toMs: fromMs + 31 * DAY,
          after: null,
          limit: 5,
        });
      // PostgreSQL plans a named statement for its values five times before it weighs one plan
      // for all: eight searches of each shape, with other values each time.
      const starts = Array.from({ length: 8 }, (_, i) => Date.UTC(2026, 1, 20 + i));
      for (const fromMs of starts) {
        // One letter is walked in result order; a word is read from the word index.
        expect((await search('d', null, fromMs)).map((h) => h.programme.title)).toEqual([
          'Day film',
          'Day one',
          'Day two',
        ]);
        expect((await search('film', 'FR', fromMs)).map((h) => h.programme.title)).toEqual([
          'Day film',
        ]);
      }
      const { rows } = await searchPool.query<{ custom: number; generic: number }>({
        text: `SELECT custom_plans::int AS custom, generic_plans::int AS generic
         FROM pg_prepared_statements WHERE name LIKE 'search-%' ORDER BY statement`,
      });
      // The index read, the walks from the window's start and from where the earlier walks
      // found nothing (the one letter is walked twice a search: the page is not full), and the
      // read of the programmes found, once a search.
      expect(rows.length).toBe(4);
      expect(rows.map((r) => r.custom)).toEqual([0, 0, 0, 0]);
      expect(rows.reduce((sum, r) => sum + r.generic, 0)).toBe(8 + 2 * 8 + 2 * 8);
    } finally {
      await searchPool.end();
      await s.dispose();
    }
  });

  it('sends a walk alone, but in a batch where an earlier walk found where it begins', async () => {
    const { s, searchPool: connections } = await dayStore(2);
    // What each search statement was sent as: alone, or to go in a batch.
    const sent: boolean[] = [];
    const recorded: QueryConnections = {
      query: (config, options) => {
        sent.push(options?.alone === true);
        return connections.query(config, options);
      },
      end: () => connections.end(),
      get ended() {
        return connections.ended;
      },
    };
    try {
      const reader = createPostgresCatalogueReader((s.store as PostgresStore).pool, recorded);
      /** The titles found from `fromMs` (one letter: walked), and how each statement went. */
      const search = async (fromMs: number, limit: number) => {
        sent.length = 0;
        const hits = await searchWhole(reader, {
          terms: { words: [], prefix: 'd' },
          country: null,
          channels: null,
          fromMs,
          toMs: fromMs + 31 * DAY,
          after: null,
          limit,
        });
        return { titles: hits.map((h) => h.programme.title), alone: [...sent] };
      };
      const all = ['Day film', 'Day one', 'Day two'];
      const fromMs = Date.UTC(2026, 1, 20);
      const hour = 3_600_000;
      // A page of 5 is not filled: walked twice (the second from where the first found its
      // first match, after the span it found without one), then the programmes found read. A
      // walk of a search whose walks do not fill their page goes alone, from wherever.
      expect(await search(fromMs, 5)).toEqual({ titles: all, alone: [true, true, false] });
      expect(await search(fromMs + hour, 5)).toEqual({ titles: all, alone: [true, true, false] });
      // A page of 2 is: from inside that span, the walk starts at its end, alone while the
      // search's latest walk did not fill its page, then in a batch.
      const two = all.slice(0, 2);
      expect(await search(fromMs + hour, 2)).toEqual({ titles: two, alone: [true, false] });
      expect(await search(fromMs + 2 * hour, 2)).toEqual({ titles: two, alone: [false, false] });
      // From before what is known, alone again.
      expect(await search(fromMs - hour, 2)).toEqual({ titles: two, alone: [true, false] });
    } finally {
      await connections.end();
      await s.dispose();
    }
  });

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
      list.map(({ sourceFileId, durationMs, mergeMs, ...rest }) => ({
        ...rest,
        sourceFileId: sourceFileId.length,
        durationMs: typeof durationMs,
        mergeMs: typeof mergeMs,
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

  it('for programme searches over the corpus guides', async () => {
    const searches: [string, string | null][] = [
      ['news', null],
      ['le', 'FR'],
      ['the', null],
      ['a', null],
      ['film de', null],
      ['ข่าว', null],
      ['s', 'ZA'],
      // Prefixes longer than FTS5's prefix indexes: counted by their head, read whole.
      ['meteo', null],
      ['journa', 'FR'],
      ['documen', null],
      ['the invest', null],
    ];
    let found = 0;
    for (const [q, country] of searches) {
      const terms = searchTermsOf(q);
      if (terms === null) throw new Error('blank');
      const answers = await Promise.all(
        stores.map((s) =>
          searchWhole(s.store.catalogue, {
            terms,
            country,
            channels: null,
            fromMs: NOW - 400 * DAY,
            toMs: NOW + 400 * DAY,
            after: null,
            limit: 200,
          }),
        ),
      );
      // The source file id is a fresh UUID per ingest.
      const [first, ...others] = answers.map((hits) =>
        hits.map(({ programme: { sourceFileId, ...programme }, ...hit }) => ({
          ...hit,
          programme: { ...programme, sourceFileId: sourceFileId.length },
        })),
      );
      found += first?.length ?? 0;
      for (const other of others) expect(other).toEqual(first);
      const keys = (first ?? []).map((hit) => hit.key);
      expect(keys).toEqual([...keys].sort(compareSearchKeys));
    }
    expect(found).toBeGreaterThan(200);
  });
});

describe.each(ENGINES)('the change log: %s', (engine) => {
  let s: EngineStore;
  beforeAll(async () => {
    s = await openEngineStore(engine, NOW);
  });
  afterAll(async () => {
    await s?.dispose();
  });

  const t = (h: number) => `20260401${String(h).padStart(2, '0')}0000 +0000`;
  const guideOf = (channelName: string, programmes: [string, number, string][]) =>
    Buffer.from(`<tv>
<channel id="k.uk"><display-name>${channelName}</display-name></channel>
<channel id="l.fr"><display-name>Elle</display-name></channel>
${programmes
  .map(
    ([channel, h, title]) =>
      `<programme start="${t(h)}" stop="${t(h + 1)}" channel="${channel}"><title>${title}</title></programme>`,
  )
  .join('\n')}
</tv>`);
  const k = channelIdFor('k.uk');
  const l = channelIdFor('l.fr');
  const read = (
    after: number,
    more: Partial<{ limit: number; country: string; channels: string[] }> = {},
  ) =>
    s.store.changes.read({
      after,
      limit: more.limit ?? 100,
      country: more.country ?? null,
      channels: more.channels ?? null,
    });
  /** Records as `kind change channel programme-start`, for comparing. */
  const shown = (
    records: { kind: string; change: string; channelId: string; start: string | null }[],
  ) =>
    records
      .map(
        (r) =>
          `${r.kind} ${r.change} ${r.channelId === k ? 'k' : 'l'}${r.start ? ` ${r.start.slice(8, 10)}h` : ''}`,
      )
      .sort();

  it('records what each ingest added, changed and removed, in order, and nothing for the same guide again', async () => {
    const empty = await read(0);
    expect(empty).toEqual({ bounds: { newest: 0, horizon: 0 }, records: [] });

    const first: [string, number, string][] = [
      ['k.uk', 6, 'News'],
      ['k.uk', 7, 'Film'],
      ['k.uk', 8, 'Late show'],
      ['l.fr', 6, 'Journal'],
    ];
    await run(s.store, guideOf('Kay', first), NOW);
    const one = await read(0);
    expect(shown(one.records)).toEqual([
      'channel added k',
      'channel added l',
      'programme added k 06h',
      'programme added k 07h',
      'programme added k 08h',
      'programme added l 06h',
    ]);
    expect(one.records.map((r) => r.seq)).toEqual(
      [...one.records.map((r) => r.seq)].sort((a, b) => a - b),
    );
    expect(one.bounds.newest).toBe(one.records.at(-1)?.seq);
    const added = one.records.find((r) => r.start === t(7));
    expect(added).toMatchObject({
      kind: 'programme',
      change: 'added',
      channelId: k,
      programmeId: programmeIdFor(k, t(7)),
      atMs: NOW,
    });
    expect(one.records.find((r) => r.kind === 'channel')).toMatchObject({
      programmeId: null,
      start: null,
    });

    // The same guide again: nothing changed, nothing recorded.
    await run(s.store, guideOf('Kay', first), NOW + 1000);
    expect((await read(one.bounds.newest)).records).toEqual([]);

    // A channel renamed, a programme retitled, one removed, one added.
    await run(
      s.store,
      guideOf('Kay Two', [
        ['k.uk', 6, 'News'],
        ['k.uk', 7, 'Another film'],
        ['k.uk', 9, 'Night'],
        ['l.fr', 6, 'Journal'],
      ]),
      NOW + 2000,
    );
    const two = await read(one.bounds.newest);
    expect(shown(two.records)).toEqual([
      'channel changed k',
      'programme added k 09h',
      'programme changed k 07h',
      'programme removed k 08h',
    ]);
    expect(two.records.every((r) => r.atMs === NOW + 2000 && r.seq > one.bounds.newest)).toBe(true);

    // Filters: a channel, a country (the channel's country now).
    expect(shown((await read(0, { channels: [l] })).records)).toEqual([
      'channel added l',
      'programme added l 06h',
    ]);
    expect(shown((await read(one.bounds.newest, { country: 'FR' })).records)).toEqual([]);
    expect((await read(0, { country: 'UK' })).records).toHaveLength(8);

    // Pages: in seq order, each after the last.
    const all = (await read(0)).records.map((r) => r.seq);
    const paged: number[] = [];
    for (let after = 0; ;) {
      const page = (await read(after, { limit: 3 })).records.map((r) => r.seq);
      paged.push(...page);
      if (page.length < 3) break;
      after = page.at(-1) ?? after;
    }
    expect(paged).toEqual(all);

    // An operator's fix that changes what the API shows is a record; one that does not, none.
    const before = (await read(0)).bounds.newest;
    await s.store.channels.fixChannel(l, { country: 'BE' }, NOW + 3000);
    await s.store.channels.fixChannel(l, { country: 'BE' }, NOW + 4000);
    const fixes = await read(before);
    expect(fixes.records.map((r) => [r.kind, r.change, r.channelId, r.atMs])).toEqual([
      ['channel', 'changed', l, NOW + 3000],
    ]);
  });

  it('prunes records past their retention and says how far it pruned', async () => {
    const day = 86_400_000;
    const newestBefore = (await read(0)).bounds.newest;
    await ingestXmltv(
      s.store.ingest,
      { name: 'guide.xml', data: guideOf('Kay', [['k.uk', 10, 'Later']]) },
      { country: null, assumeOffsetMinutes: 0, nowMs: NOW + 40 * day, changesRetentionDays: 30 },
    );
    const after = await read(0);
    // Every record of the ingests 40 days before is gone; the horizon is the last of them.
    expect(after.bounds.horizon).toBe(newestBefore);
    expect(after.records.length).toBeGreaterThan(0);
    expect(after.records.every((r) => r.seq > newestBefore && r.atMs === NOW + 40 * day)).toBe(
      true,
    );
    expect(after.bounds.newest).toBe(after.records.at(-1)?.seq);
  });
});

describe.each(ENGINES)('guide feeds: %s', (engine) => {
  let s: EngineStore;
  beforeAll(async () => {
    s = await openEngineStore(engine, NOW);
    await run(s.store, guide('Day', 1));
  });
  afterAll(async () => {
    await s?.dispose();
  });

  const settings = (
    name: string,
    channelIds: string[],
  ): Omit<NewFeed, 'accountId' | 'tokenHash'> => ({
    name,
    lineup: { kind: 'channels', channelIds },
    daysAhead: 7,
    daysBack: 1,
  });

  it('keeps feeds per account: create, list, edit, new token, delete; at most 10', async () => {
    const { accounts, feeds } = s.store;
    const ann = await accounts.createAccount(
      { email: 'feeds@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
      NOW,
    );
    const a = channelIdFor('a.uk');
    const b = channelIdFor('b.fr');
    const first = await feeds.createFeed(
      { ...settings('Living room', [b, a]), accountId: ann.id, tokenHash: 'h1' },
      NOW,
    );
    expect(first).toMatchObject({
      accountId: ann.id,
      name: 'Living room',
      lineup: { kind: 'channels', channelIds: [b, a] },
      daysAhead: 7,
      daysBack: 1,
      createdAt: NOW,
      updatedAt: NOW,
    });
    expect(await feeds.findFeed(first.id)).toEqual(first);
    expect(await feeds.findFeedByToken('h1')).toEqual({
      feed: first,
      account: await accounts.findAccountById(ann.id),
    });

    const edited = await feeds.updateFeed(
      first.id,
      { name: 'France', lineup: { kind: 'country', country: 'FR' }, daysAhead: 14, daysBack: 0 },
      NOW + 1,
    );
    expect(edited).toMatchObject({
      name: 'France',
      lineup: { kind: 'country', country: 'FR' },
      daysAhead: 14,
      daysBack: 0,
      createdAt: NOW,
      updatedAt: NOW + 1,
    });
    // A new token ends the old one at once.
    await feeds.replaceToken(first.id, 'h2', NOW + 2);
    expect(await feeds.findFeedByToken('h1')).toBeNull();
    expect((await feeds.findFeedByToken('h2'))?.feed.id).toBe(first.id);

    for (let i = 2; i <= 9; i++) {
      await feeds.createFeed(
        { ...settings(`Feed ${i}`, [a]), accountId: ann.id, tokenHash: `h-${i}` },
        NOW + i,
      );
    }
    // Two creations at once at 9 feeds: exactly one gets the tenth place.
    const both = await Promise.allSettled(
      ['x', 'y'].map((t) =>
        feeds.createFeed({ ...settings(t, [a]), accountId: ann.id, tokenHash: t }, NOW + 20),
      ),
    );
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = both.find((r) => r.status === 'rejected');
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(FeedLimitError);
    const listed = await feeds.listFeeds(ann.id);
    expect(listed.map((f) => f.name).slice(0, 3)).toEqual(['France', 'Feed 2', 'Feed 3']);
    expect(listed).toHaveLength(10);

    expect(await feeds.deleteFeed(first.id)).toBe(true);
    expect(await feeds.deleteFeed(first.id)).toBe(false);
    expect(await feeds.findFeedByToken('h2')).toBeNull();
    expect(await feeds.findFeed(first.id)).toBeNull();
    expect(await feeds.updateFeed(first.id, settings('gone', [a]), NOW)).toBeNull();
    expect(await feeds.listFeeds(ann.id)).toHaveLength(9);
  });

  it("reads a lineup's channels in its order and their programmes by start", async () => {
    const { feeds } = s.store;
    const a = channelIdFor('a.uk');
    const b = channelIdFor('b.fr');
    const channels = await feeds.lineupChannels({
      kind: 'channels',
      channelIds: [b, channelIdFor('missing.de'), a],
    });
    expect(channels).toEqual([
      {
        id: b,
        xmltvId: 'b.fr',
        name: 'Télé Lumière',
        displayNames: [{ value: 'Télé Lumière', lang: '' }],
        icon: 'https://img.example/b.png',
      },
      {
        id: a,
        xmltvId: 'a.uk',
        name: 'Ä 100% _real_ Channel',
        displayNames: [{ value: 'Ä 100% _real_ Channel', lang: '' }],
        icon: '',
      },
    ]);
    expect(
      (await feeds.lineupChannels({ kind: 'country', country: 'FR' })).map((c) => c.xmltvId),
    ).toEqual(['b.fr']);

    const six = Date.UTC(2026, 2, 1, 6);
    const seven = six + 3_600_000;
    const all = await feeds.programmesStarting(a, six, seven + 1);
    expect(all.map((p) => [p.start, p.stop, p.title])).toEqual([
      ['20260301060000 +0000', '20260301070000 +0000', 'Day one'],
      ['20260301070000 +0000', '20260301080000 +0000', 'Day two'],
    ]);
    // Starts in [from, to): the end is left out, the start kept.
    expect((await feeds.programmesStarting(a, six, seven)).map((p) => p.title)).toEqual([
      'Day one',
    ]);
    expect((await feeds.programmesStarting(a, six + 1, seven + 1)).map((p) => p.title)).toEqual([
      'Day two',
    ]);
    expect(await feeds.channelsWithProgrammes([a, b], six + 1, seven + 1)).toEqual(new Set([a]));
    expect(await feeds.channelsWithProgrammes([a, b], six, six + 1)).toEqual(new Set([a, b]));
    expect(await feeds.channelsWithProgrammes([a, b], seven + 1, seven + 2)).toEqual(new Set());
    expect(await feeds.firstStartFrom([a, b], six + 1)).toBe(seven);
    expect(await feeds.firstStartFrom([a, b], six)).toBe(six);
    expect(await feeds.firstStartFrom([a, b], seven + 1)).toBeNull();
  });
});
