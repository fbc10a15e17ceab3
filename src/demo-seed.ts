import { issueApiKey } from './accounts/account-service.js';
import {
  DEMO_PLAYGROUND_XMLTV_IDS,
  DEMO_XMLTV_IDS,
  demoGuides,
} from './catalogue/demo-catalogue.js';
import { ingestXmltv } from './catalogue/ingest/ingest-xmltv.js';
import { decideAccess, TRIAL_MS } from './domain/access.js';
import { channelIdFor } from './domain/catalogue-ids.js';
import { DAY_MS } from './domain/schedule-window.js';
import type { Store } from './storage/store.js';

export const DEMO_EMAIL = 'demo@onair.local';

/** What a demo seeding created, for the start-up banner. */
export interface DemoSeed {
  channels: number;
  programmes: number;
  email: string;
  key: string;
}

/** What `serve --demo` (`npm start`) found and did, for the start-up banner. */
export type DemoStart =
  | { kind: 'seeded'; seed: DemoSeed }
  /**
   * The catalogue holds the demo channels alone: their guides were ingested again for this
   * week (`moved` when that added or changed programmes) and the demo account, when it is
   * there, kept open (DEMO_ACCESS_MS).
   */
  | { kind: 'demo'; moved: boolean; account: string | null }
  /** The catalogue holds other data: nothing was touched. */
  | { kind: 'other'; account: string | null };

/**
 * The demo account's access from each `npm start` of a demo-only catalogue, so that a demo
 * started again after its 7-day trial still answers (its trial would otherwise end a week after
 * the first start, and every key made for it be refused with ACCESS_EXPIRED).
 */
const DEMO_ACCESS_MS = TRIAL_MS;

/**
 * Fills an EMPTY catalogue with the demo guides and gives the demo account (created verified,
 * so its 7-day trial runs from now) a fresh key. Does nothing and returns null when the
 * catalogue already has channels: demo data never mixes with real data.
 */
export async function seedDemo(store: Store, nowMs: number): Promise<DemoSeed | null> {
  if ((await store.catalogue.countChannels()) > 0) return null;
  const { channels, programmes } = await ingestDemoGuides(store, nowMs);
  for (const xmltvId of DEMO_PLAYGROUND_XMLTV_IDS) {
    await store.playground.add(channelIdFor(xmltvId), nowMs);
  }
  const account =
    (await store.accounts.findAccountByEmail(DEMO_EMAIL)) ??
    (await store.accounts.createAccount(
      { email: DEMO_EMAIL, verifiedAt: nowMs, accessUntil: null, rateLimit: null },
      nowMs,
    ));
  const { key } = await issueApiKey(store.accounts, account.id, 'demo', nowMs);
  return { channels, programmes, email: account.email, key };
}

/**
 * `npm start`'s demo: seeds an empty catalogue (seedDemo); on a catalogue of the demo channels
 * alone that has fallen behind, ingests their guides again for the fortnight around now (the same merge as every
 * ingest: a day later, the days ahead are added and today's programmes change no more than
 * their episode numbers) and keeps the demo account's access open; any other catalogue is left
 * as it is. So the demo served a month after `npm install` is this week's, as the first one was.
 */
export async function startDemo(store: Store, nowMs: number): Promise<DemoStart> {
  const seed = await seedDemo(store, nowMs);
  if (seed !== null) return { kind: 'seeded', seed };
  const found = await store.accounts.findAccountByEmail(DEMO_EMAIL);
  const account = found?.email ?? null;
  if (!(await holdsDemoAlone(store))) return { kind: 'other', account };
  // Ingested again only once it has fallen behind: the same guides again cost a start about a
  // second (six guides, 3,510 programmes) and added six source files, for nothing.
  const { changed } = (await reachesAWeekAhead(store, nowMs))
    ? { changed: 0 }
    : await ingestDemoGuides(store, nowMs);
  if (found !== null && !found.disabled && found.verifiedAt !== null) {
    // Opened again once a day of it has gone: not a write and an audit event on every start.
    const until = decideAccess(found, nowMs).until ?? -Infinity;
    const wanted = nowMs + DEMO_ACCESS_MS;
    if (until < wanted - DAY_MS) {
      await store.accounts.updateAccount(found.id, { accessUntil: wanted }, nowMs);
      await store.accounts.recordAudit(
        {
          accountId: found.id,
          actor: 'system',
          action: 'access.granted',
          details: {
            from: found.accessUntil === null ? null : new Date(found.accessUntil).toISOString(),
            to: new Date(wanted).toISOString(),
            why: 'the demo account, at a start of the demo (npm start)',
          },
        },
        nowMs,
      );
    }
  }
  return { kind: 'demo', moved: changed > 0, account };
}

/**
 * Whether the demo runs on past a week from now, as one ingested today does: demoGuides' days
 * run without gaps from the channel's day under way a week ago, fifteen of them, so today's
 * guide ends between seven and eight days on, and one of an earlier day at most seven.
 */
async function reachesAWeekAhead(store: Store, nowMs: number): Promise<boolean> {
  const first = channelIdFor(DEMO_XMLTV_IDS[0] ?? '');
  const weekOn = nowMs + 7 * DAY_MS;
  return (await store.catalogue.programmesBetween([first], weekOn, weekOn + 1)).has(first);
}

/** Whether the catalogue's channels are the demo's, every one and no other. */
async function holdsDemoAlone(store: Store): Promise<boolean> {
  const ids = DEMO_XMLTV_IDS.map((xmltvId) => channelIdFor(xmltvId));
  if ((await store.catalogue.countChannels()) !== ids.length) return false;
  return (await store.catalogue.findChannels(ids)).length === ids.length;
}

/** Ingests the demo guides for the fortnight around `nowMs`. */
async function ingestDemoGuides(
  store: Store,
  nowMs: number,
): Promise<{ channels: number; programmes: number; changed: number }> {
  let channels = 0;
  let programmes = 0;
  let changed = 0;
  for (const guide of demoGuides(nowMs)) {
    const summary = await ingestXmltv(
      store.ingest,
      { name: `demo-${guide.country.toLowerCase()}.xml`, data: Buffer.from(guide.xml) },
      { country: guide.country, assumeOffsetMinutes: 0, nowMs },
    );
    channels += summary.channels;
    programmes += summary.programmesStored;
    changed +=
      summary.merge.programmesAdded +
      summary.merge.programmesUpdated +
      summary.merge.programmesRemoved;
  }
  return { channels, programmes, changed };
}
