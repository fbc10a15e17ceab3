import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { formatUtcOffset, formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import {
  searchTermsOf,
  searchWordsOf,
  type SearchTerms,
} from '../../src/domain/programme-search.js';

/**
 * Random guides and programme searches with the answers the rules give, for the oracle tests
 * of programme search (test/storage/ and test/http/programme-search-oracle.test.ts): guides of
 * tricky words (accents, ligatures, stroked letters, sigma, dotted I, compatibility forms, CJK,
 * words past the length cut) on twelve channels whose names tie by case, many programmes
 * sharing a start, times at several offsets; each guide after the first replaces what the one
 * before stored from its channels' first start, and the second renames channels.
 */

/**
 * The seed of an oracle test's run: SEARCH_ORACLE_SEED to replay one, else a new one each run
 * (the tests name it in their failures).
 */
export const ORACLE_SEED = Number(process.env['SEARCH_ORACLE_SEED'] ?? Date.now() % 1_000_000);

/** The "now" of the guides: they span two days before it to eighteen after. */
export const ORACLE_NOW = Date.UTC(2026, 2, 1);

const HOUR = 3_600_000;
const PROGRAMMES_PER_GUIDE = 1200;

const WORDS = [
  ...['news', 'News', 'NEWS', 'new', 'ne', 'n', 'newsroom', 'newsnight', 'star', 'Star'],
  ...['trek', 'Trek', 'startrek', 'the', 'The', 'a', 'le', 'de', '10', '2026', 'film', 'Film'],
  ...['Télé', 'tele', 'TELE', 'été', 'ETE', 'e\u0301te\u0301', 'café', 'CAFÉ', 'naïve', 'ä'],
  ...['Ä', 'o\u0308', 'ö', 'Straße', 'strasse', 'ß', 'ẞIG', 'Łódź', 'lodz', 'Ørsted', 'Œuvre'],
  ...['oeuvre', 'Æon', 'ſun', 'Ĳssel', 'ijssel', 'ǅ', 'Ǆungla', 'ﬁlm', '½', '①', '²', '™', 'µ'],
  ...['Ⅻ', 'ｶﾀｶﾅ', 'ΟΔΟΣ', 'οδος', 'οδός', 'Ελλάδα', 'ΣΟΦΙΑ', 'Σ', 'İstanbul', 'istanbul'],
  ...['Kırmızı', 'kirmizi', '東京', 'ニュース', '한국', "l'été", 'rock&roll', 'o’neil', 'a-b'],
  ...['x_y', 'x'.repeat(70), 'é'.repeat(70)],
];
const SEPARATORS = [' ', ' ', ' ', ', ', '-', ': ', '.', ' & ', '\u00a0', '  ', '/', "'"];
const CHANNELS = [
  ['News', 'uk'],
  ['news', 'fr'],
  ['NEWS 24', 'de'],
  ['Ärte', 'uk'],
  ['arte', 'fr'],
  ['Zed', 'gr'],
  ['zed', 'uk'],
  ['Télé', 'fr'],
  ['ΣΟΦΙΑ', 'gr'],
  ['a', 'de'],
  ['B', 'uk'],
  ['b', 'fr'],
] as const;
const COUNTRIES = ['UK', 'FR', 'DE', 'GR', 'ZZ'];

/** A small seeded generator (a linear congruential one): the same seed, the same run. */
function generator(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 0x1_0000_0000;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  return { next, int, pick };
}

const xmlText = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const xmltvId = (channel: number) => `c${channel}.${CHANNELS[channel]?.[1]}`;

/** An XMLTV time of `ms` written at UTC offset `hours`. */
const xmltvTime = (ms: number, hours: number) =>
  `${formatXmltvUtc(ms + hours * HOUR).slice(0, 14)} ${formatUtcOffset(hours * 60)}`;

/** A programme the oracle knows: where it is listed and the words it is found by. */
export interface KnownProgramme {
  channelId: string;
  country: string;
  startMs: number;
  words: Set<string>;
}

/** A search as the store and the route take it, with the `q` it came from. */
export interface OracleSearch {
  q: string;
  terms: SearchTerms;
  country: string | null;
  channels: string[] | null;
  fromMs: number;
  toMs: number;
  limit: number;
}

export function createSearchOracle(seed: number) {
  const random = generator(seed);
  /** What the catalogue holds, by channel and start, as the merge rules leave it. */
  const stored = new Map<string, KnownProgramme>();
  let guides = 0;

  const phrase = (most: number) => {
    let out = random.pick(WORDS);
    for (let n = random.int(most); n > 0; n--) out += random.pick(SEPARATORS) + random.pick(WORDS);
    return out;
  };

  return {
    /** The next guide (XMLTV), the oracle now holding the catalogue as it leaves it. */
    nextGuide(): string {
      const renamed = guides++ === 1;
      const fresh: KnownProgramme[] = [];
      const slots = new Set<string>();
      let xml = '<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n';
      CHANNELS.forEach(([name], i) => {
        const shown = renamed && i % 3 === 0 ? `${name} Two` : name;
        xml += `<channel id="${xmltvId(i)}"><display-name>${xmlText(shown)}</display-name></channel>\n`;
      });
      for (let n = 0; n < PROGRAMMES_PER_GUIDE; n++) {
        const channel = random.int(CHANNELS.length);
        // Many programmes share a start, so ties go to the channel name and then the id.
        const startMs = ORACLE_NOW + (random.int(480) - 48) * HOUR + random.pick([0, 0, 1_800_000]);
        if (slots.has(`${channel} ${startMs}`)) continue;
        slots.add(`${channel} ${startMs}`);
        const texts: string[] = [];
        const element = (tag: string, text: string, attributes = '') => {
          texts.push(text);
          return `<${tag}${attributes}>${xmlText(text)}</${tag}>`;
        };
        let body = element('title', phrase(3));
        if (random.next() < 0.3) body += element('title', phrase(2), ' lang="fr"');
        if (random.next() < 0.4) body += element('sub-title', phrase(2));
        if (random.next() < 0.6) body += element('desc', phrase(11));
        if (random.next() < 0.3) {
          const actors = [element('actor', phrase(1))];
          if (random.next() < 0.5) actors.push(element('actor', phrase(1)));
          body += `<credits>${actors.join('')}</credits>`;
        }
        if (random.next() < 0.4) body += element('category', phrase(1));
        const hours = random.pick([0, 0, 2, -5]);
        xml += `<programme start="${xmltvTime(startMs, hours)}" stop="${xmltvTime(startMs + HOUR, hours)}" channel="${xmltvId(channel)}">${body}</programme>\n`;
        fresh.push({
          channelId: channelIdFor(xmltvId(channel)),
          country: (CHANNELS[channel]?.[1] ?? '').toUpperCase(),
          startMs,
          words: new Set(texts.flatMap((text) => searchWordsOf(text))),
        });
      }
      // A file replaces its channels' programmes from each one's first start in it.
      const firstStart = new Map<string, number>();
      for (const p of fresh) {
        firstStart.set(p.channelId, Math.min(firstStart.get(p.channelId) ?? Infinity, p.startMs));
      }
      for (const [slot, p] of stored) {
        if (p.startMs >= (firstStart.get(p.channelId) ?? Infinity)) stored.delete(slot);
      }
      for (const p of fresh) stored.set(`${p.channelId} ${p.startMs}`, p);
      return `${xml}</tv>\n`;
    },

    /**
     * A random search: words of a stored programme (the last cut to a prefix, sometimes in
     * capitals) or a phrase of the vocabulary cut anywhere; sometimes a country or channels; a
     * window of up to 14 days; a page size. Null when its `q` has no word.
     */
    nextSearch(): OracleSearch | null {
      const known = [...stored.values()];
      const own = [...random.pick(known).words];
      let q: string;
      if (random.next() < 0.65 && own.length > 0) {
        const chosen = Array.from({ length: 1 + random.int(3) }, () => random.pick(own));
        const last = Array.from(chosen.pop() ?? '');
        const cut = random.next() < 0.5 ? 1 + random.int(last.length) : last.length;
        chosen.push(last.slice(0, cut).join(''));
        q = chosen.join(random.pick([' ', '  ', ', ', '-']));
        if (random.next() < 0.3) q = q.toUpperCase();
      } else {
        const words = Array.from({ length: 1 + random.int(3) }, () => random.pick(WORDS));
        const text = Array.from(words.join(random.pick(SEPARATORS)));
        q = text.slice(0, 1 + random.int(text.length)).join('');
      }
      const terms = searchTermsOf(q);
      if (terms === null) return null;
      const country = random.next() < 0.3 ? random.pick(COUNTRIES) : null;
      const channels =
        random.next() < 0.2
          ? [...new Set([random.int(CHANNELS.length), random.int(CHANNELS.length)])].map((i) =>
              channelIdFor(xmltvId(i)),
            )
          : null;
      const fromMs = ORACLE_NOW + (random.int(480) - 60) * HOUR + random.pick([0, 1000, 1_800_000]);
      const toMs = fromMs + (1 + random.int(24 * 14)) * HOUR;
      const limit = random.pick([1, 3, 7, 50, 200]);
      return { q, terms, country, channels, fromMs, toMs, limit };
    },

    /** The programmes `search` selects, as sorted `channelId startMs` lines. */
    expected(search: OracleSearch): string[] {
      const { terms, country, channels, fromMs, toMs } = search;
      return [...stored.values()]
        .filter(
          (p) =>
            terms.words.every((w) => p.words.has(w)) &&
            [...p.words].some((w) => w.startsWith(terms.prefix)) &&
            p.startMs >= fromMs &&
            p.startMs < toMs &&
            (country === null || p.country === country) &&
            (channels === null || channels.includes(p.channelId)),
        )
        .map((p) => `${p.channelId} ${p.startMs}`)
        .sort();
    },
  };
}
