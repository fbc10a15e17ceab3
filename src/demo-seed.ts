import { issueApiKey } from './accounts/account-service.js';
import { DEMO_PLAYGROUND_XMLTV_IDS, demoGuides } from './catalogue/demo-catalogue.js';
import { channelIdFor } from './domain/catalogue-ids.js';
import { ingestXmltv } from './catalogue/ingest/ingest-xmltv.js';
import type { Store } from './storage/store.js';

export const DEMO_EMAIL = 'demo@onair.local';

/** What a demo seeding created, for the start-up banner. */
export interface DemoSeed {
  channels: number;
  programmes: number;
  email: string;
  key: string;
}

/**
 * Fills an EMPTY catalogue with the demo guides and gives the demo account (created verified,
 * so its 7-day trial runs from now) a fresh key. Does nothing and returns null when the
 * catalogue already has channels: demo data never mixes with real data.
 */
export async function seedDemo(store: Store, nowMs: number): Promise<DemoSeed | null> {
  if ((await store.catalogue.countChannels()) > 0) return null;
  let channels = 0;
  let programmes = 0;
  for (const guide of demoGuides(nowMs)) {
    const summary = await ingestXmltv(
      store.ingest,
      { name: `demo-${guide.country.toLowerCase()}.xml`, data: Buffer.from(guide.xml) },
      { country: guide.country, assumeOffsetMinutes: 0, nowMs },
    );
    channels += summary.channels;
    programmes += summary.programmesStored;
  }
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
