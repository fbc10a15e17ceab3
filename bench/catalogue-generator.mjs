// Generates a synthetic catalogue straight into a store (no XML): `channels` channels in ten
// countries, `days` days of `perDay` programmes each, the last `futureDays` of them ahead of
// `nowMs`. Used by the HTTP benchmark; the ingest benchmark parses real XML instead.
import { randomUUID } from 'node:crypto';

const COUNTRIES = ['UK', 'DE', 'FR', 'ES', 'IT', 'US', 'AU', 'IN', 'BR', 'JP'];
const WORDS = ['News', 'Sport', 'Kids', 'Movies', 'Music', 'Drama', 'Télé', 'Info', 'Docs', 'Plus'];
const DAY = 86_400_000;

/** @param {{ ids: any; time: any; store: any }} lib */
export async function generateCatalogue(lib, store, options) {
  const { channels, days, perDay, futureDays, nowMs } = options;
  const session = await store.ingest.beginIngest();
  const firstDay = Math.floor(nowMs / DAY) * DAY - (days - futureDays) * DAY;
  const slot = Math.floor(DAY / perDay);
  let programmes = 0;
  for (let c = 0; c < channels; c++) {
    const xmltvId = `bench${c}.${COUNTRIES[c % COUNTRIES.length].toLowerCase()}`;
    const channelId = lib.ids.channelIdFor(xmltvId);
    session.stageChannel({
      id: channelId,
      xmltvId,
      name: `${WORDS[c % WORDS.length]} ${WORDS[Math.floor(c / 10) % WORDS.length]} ${c}`,
      icon: `https://img.example/${c}.png`,
      country: COUNTRIES[c % COUNTRIES.length],
      fallbackCountry: 'ZZ',
      declared: true,
    });
    for (let d = 0; d < days; d++) {
      for (let p = 0; p < perDay; p++) {
        const startMs = firstDay + d * DAY + p * slot;
        const start = lib.time.formatXmltvUtc(startMs);
        session.stageProgramme({
          channelId,
          start,
          stop: lib.time.formatXmltvUtc(startMs + slot),
          startMs,
          stopMs: startMs + slot,
          title: `Programme ${p} of day ${d}`,
          desc: 'A programme of the synthetic benchmark catalogue, with a description of typical length for a guide.',
          category: p % 3 === 0 ? 'News, Current affairs' : 'Entertainment',
          needsReview: false,
          line: 0,
        });
        programmes++;
      }
    }
    if (c % 50 === 49) await session.drain();
  }
  await session.commit({
    id: randomUUID(),
    source: 'bench-generator',
    country: null,
    sizeBytes: 0,
    sha256: '',
    ingestedAt: nowMs,
    summary: {},
  });
  return { channels, programmes };
}
