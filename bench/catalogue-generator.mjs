// Generates a synthetic catalogue straight into a store (no XML): `channels` channels in ten
// countries, `days` days of `perDay` programmes each, the last `futureDays` of them ahead of
// `nowMs`. Used by the HTTP benchmark; the ingest benchmark parses real XML instead.
import { randomUUID } from 'node:crypto';

const COUNTRIES = ['UK', 'DE', 'FR', 'ES', 'IT', 'US', 'AU', 'IN', 'BR', 'JP'];
const WORDS = ['News', 'Sport', 'Kids', 'Movies', 'Music', 'Drama', 'Télé', 'Info', 'Docs', 'Plus'];
const DAY = 86_400_000;
/**
 * Channels 1000–1499 form a country of their own, `XG`, for the guide grid's measures (500
 * channels in one country); the others cycle through COUNTRIES.
 */
export const GRID_COUNTRY = 'XG';
const GRID_CHANNELS = [1000, 1500];
const countryOf = (c) =>
  c >= GRID_CHANNELS[0] && c < GRID_CHANNELS[1] ? GRID_COUNTRY : COUNTRIES[c % COUNTRIES.length];

/**
 * Stored details of a rich programme as series guides have them (a sub-title, episode numbers,
 * a few credits, an image, flags), so the v1 routes are measured over a catalogue full of rich
 * data and the programme detail route has some to serve.
 */
function richDetails(lib, search, c, d, p, v1) {
  const { detailsOf, encodeDetails } = lib.details;
  const element = (name, text, attributes = [], children = []) => ({
    name,
    attributes,
    text,
    children,
  });
  const elements = [
    element('title', v1.title, [['lang', 'en']]),
    element('sub-title', `Episode ${d + 1}`, [['lang', 'en']]),
    element('desc', v1.desc, [['lang', 'en']]),
    element(
      'credits',
      '',
      [],
      [
        element('actor', `Actor ${p}`, [['role', `Part ${c % 7}`]]),
        element('actor', `Actor ${p + 1}`),
        element('presenter', `Presenter ${c % 13}`),
      ],
    ),
    ...v1.category.split(', ').map((name) => element('category', name, [['lang', 'en']])),
    element('icon', '', [['src', `https://img.example/show-${p}.jpg`]]),
    element('episode-num', `${c % 5}.${d}.`, [['system', 'xmltv_ns']]),
    element('video', '', [], [element('aspect', '16:9'), element('quality', 'HDTV')]),
    element('rating', '', [['system', 'BBFC']], [element('value', 'PG')]),
  ];
  if (d % 7 === 0) elements.push(element('new', ''));
  const categories = v1.category.split(', ');
  const details = detailsOf(elements, (t) => t);
  const texts = { ...v1, categories };
  return {
    details: encodeDetails(details, texts),
    searchedTexts: search.searchedTextsOf(texts, details),
  };
}

/**
 * With `rareTitles`, one programme in RARE_EVERY gets a title word of its own (`rareWord`), for
 * the programme search's "rare title" measures; without it the data are as they always were.
 */
export const RARE_EVERY = 97;
/** The made-up word of the `n`th rare title: base-26 letters, "kq" + at least three letters. */
export function rareWord(n) {
  let word = '';
  let rest = n + 26 * 26;
  while (rest > 0) {
    word = String.fromCharCode(97 + (rest % 26)) + word;
    rest = Math.floor(rest / 26);
  }
  return `kq${word}`;
}

/**
 * The rare words (rareWord) of the catalogue `options` made whose programme starts between an
 * hour and 13 days after `nowMs`: each is a query with one result in the default window.
 * Programme `index` is ((channel × days) + day) × perDay + slot, as generateCatalogue counts.
 */
export function rareWordsAhead({ channels, days, perDay, futureDays, nowMs }) {
  const firstDay = Math.floor(nowMs / DAY) * DAY - (days - futureDays) * DAY;
  const slot = Math.floor(DAY / perDay);
  const words = [];
  const total = channels * days * perDay;
  for (let index = 0; index < total; index += RARE_EVERY) {
    const p = index % perDay;
    const d = Math.floor(index / perDay) % days;
    const startMs = firstDay + d * DAY + p * slot;
    if (startMs > nowMs + 3_600_000 && startMs < nowMs + 13 * DAY) {
      words.push(rareWord(index / RARE_EVERY));
    }
  }
  return words;
}

/** @param {{ ids: any; time: any; details: any }} lib */
export async function generateCatalogue(lib, store, options) {
  const { channels, days, perDay, futureDays, nowMs, rareTitles = false } = options;
  // The words search finds a programme by, as an ingest computes them.
  const search = lib.search ?? (await import('../dist/domain/programme-search.js'));
  let index = 0;
  const session = await store.ingest.beginIngest();
  const firstDay = Math.floor(nowMs / DAY) * DAY - (days - futureDays) * DAY;
  const slot = Math.floor(DAY / perDay);
  let programmes = 0;
  for (let c = 0; c < channels; c++) {
    const xmltvId = `bench${c}.${countryOf(c).toLowerCase()}`;
    const channelId = lib.ids.channelIdFor(xmltvId);
    const name = `${WORDS[c % WORDS.length]} ${WORDS[Math.floor(c / 10) % WORDS.length]} ${c}`;
    session.stageChannel({
      id: channelId,
      xmltvId,
      name,
      displayNames: [{ value: name, lang: '' }],
      icon: `https://img.example/${c}.png`,
      country: countryOf(c),
      fallbackCountry: 'ZZ',
      declared: true,
    });
    for (let d = 0; d < days; d++) {
      for (let p = 0; p < perDay; p++) {
        const startMs = firstDay + d * DAY + p * slot;
        const start = lib.time.formatXmltvUtc(startMs);
        const plain = `Programme ${p} of day ${d}`;
        const rare = rareTitles && index % RARE_EVERY === 0;
        const title = rare ? `${rareWord(index / RARE_EVERY)} ${plain}` : plain;
        index++;
        const desc =
          'A programme of the synthetic benchmark catalogue, with a description of typical length for a guide.';
        const category = p % 3 === 0 ? 'News, Current affairs' : 'Entertainment';
        const rich = richDetails(lib, search, c, d, p, { title, desc, category });
        session.stageProgramme({
          channelId,
          start,
          stop: lib.time.formatXmltvUtc(startMs + slot),
          startMs,
          stopMs: startMs + slot,
          title,
          desc,
          category,
          details: rich.details,
          searchedTexts: rich.searchedTexts,
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
