import { afterEach, describe, expect, it } from 'vitest';
import { decideAccess } from '../../src/domain/access.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { DAY_MS } from '../../src/domain/schedule-window.js';
import { DEMO_EMAIL, startDemo } from '../../src/demo-seed.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_ENGINE, openEngineStore, type EngineStore } from '../helpers/engines.js';
import { ingest, NOW } from './ingest-helpers.js';

// `npm start` (serve --demo) on each engine: each vitest project runs this file on its own. A
// store per test: the demo account is part of what is checked, and accounts outlive a test in
// storeForEachTest's PostgreSQL database.
let current: EngineStore | null = null;
afterEach(async () => {
  await current?.dispose();
  current = null;
});
async function freshStore(): Promise<Store> {
  current = await openEngineStore(TEST_ENGINE, NOW);
  return current.store;
}

const NEWS = channelIdFor('onair-news.uk');

/** How many of the channel's programmes start in [fromMs, toMs). */
async function startingBetween(store: Store, fromMs: number, toMs: number): Promise<number> {
  const found = await store.catalogue.programmesBetween([NEWS], fromMs, toMs);
  return (found.get(NEWS) ?? []).filter((p) => p.startMs >= fromMs).length;
}

async function demoAccount(store: Store) {
  const account = await store.accounts.findAccountByEmail(DEMO_EMAIL);
  if (account === null) throw new Error('no demo account');
  return account;
}

describe('npm start: the demo', () => {
  it('seeds an empty catalogue, then finds it loaded the same day', async () => {
    const store = await freshStore();
    const first = await startDemo(store, NOW);
    expect(first.kind).toBe('seeded');
    const files = async () =>
      Number((await current?.sql('SELECT count(*) AS n FROM source_files'))?.[0]?.n);
    const seeded = await files();
    expect(await startDemo(store, NOW + 3_600_000)).toEqual({
      kind: 'demo',
      moved: false,
      account: DEMO_EMAIL,
    });
    // Not ingested again: it still runs on past a week from now.
    expect(await files()).toBe(seeded);
    // Its 7-day trial from the seeding, untouched a hour later.
    expect(decideAccess(await demoAccount(store), NOW).until).toBe(NOW + 7 * DAY_MS);
    expect(await store.accounts.listAudit((await demoAccount(store)).id)).toEqual([]);
  });

  it('moves a demo that has fallen behind to this week and keeps its account open', async () => {
    const store = await freshStore();
    await startDemo(store, NOW);
    const later = NOW + 9 * DAY_MS;
    // Nine days on, the seeded fortnight has two days left and the trial is over.
    expect(await startingBetween(store, later + 3 * DAY_MS, later + 7 * DAY_MS)).toBe(0);
    expect(decideAccess(await demoAccount(store), later).eligible).toBe(false);

    expect(await startDemo(store, later)).toEqual({
      kind: 'demo',
      moved: true,
      account: DEMO_EMAIL,
    });
    // A week ahead of the new start, as after a first one; the week behind it kept.
    expect(await startingBetween(store, later + 6 * DAY_MS, later + 7 * DAY_MS)).toBeGreaterThan(5);
    expect(await startingBetween(store, later - 7 * DAY_MS, later - 6 * DAY_MS)).toBeGreaterThan(5);
    const account = await demoAccount(store);
    expect(decideAccess(account, later)).toEqual({ eligible: true, until: later + 7 * DAY_MS });
    const audit = await store.accounts.listAudit(account.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: 'system',
      action: 'access.granted',
      details: { from: null, to: new Date(later + 7 * DAY_MS).toISOString() },
    });

    // Started again an hour later: nothing to move, and the access is not granted again.
    expect(await startDemo(store, later + 3_600_000)).toMatchObject({ moved: false });
    expect(await store.accounts.listAudit(account.id)).toHaveLength(1);
  });

  it('leaves a catalogue with other channels, and its demo account, as they are', async () => {
    const store = await freshStore();
    await startDemo(store, NOW);
    const guide = `<tv><channel id="rte1.ie"><display-name>RTÉ One</display-name></channel></tv>`;
    await ingest(store, { name: 'ie.xml', data: Buffer.from(guide) }, { country: 'IE' });
    const later = NOW + 9 * DAY_MS;
    expect(await startDemo(store, later)).toEqual({ kind: 'other', account: DEMO_EMAIL });
    expect(await startingBetween(store, later + 3 * DAY_MS, later + 7 * DAY_MS)).toBe(0);
    expect(decideAccess(await demoAccount(store), later).eligible).toBe(false);
  });

  it('does not open a demo account the operator disabled', async () => {
    const store = await freshStore();
    await startDemo(store, NOW);
    const account = await demoAccount(store);
    await store.accounts.updateAccount(account.id, { disabled: true }, NOW);
    const later = NOW + 9 * DAY_MS;
    expect(await startDemo(store, later)).toMatchObject({ kind: 'demo', moved: true });
    expect(await demoAccount(store)).toMatchObject({ disabled: true, accessUntil: null });
  });
});
