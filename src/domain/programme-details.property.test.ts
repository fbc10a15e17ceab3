import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CREDIT_ROLES,
  decodeDetails,
  detailsOf,
  encodeDetails,
  parseXmltvNs,
  v1TextsOf,
  type ProgrammeDetails,
} from './programme-details.js';
import type { XmltvElement } from './xmltv-element.js';

const RUNS = 500;

/** Texts a guide writes: readable values, padded values, and anything at all. */
const text = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'yes',
    ' no ',
    '16:9',
    '2.4/13.0/1',
    ' .4. ',
    '30',
    '1.5',
    'PG',
    'en',
    '0',
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ maxLength: 4, unit: 'binary' }),
);
/** Every name the rules read at any depth, and one they do not. */
const name = fc.constantFrom(
  ...['title', 'sub-title', 'desc', 'episode-num', 'category', 'keyword', 'icon', 'image', 'url'],
  ...['credits', 'date', 'country', 'language', 'orig-language', 'length', 'rating'],
  ...['star-rating', 'new', 'premiere', 'last-chance', 'previously-shown', 'video', 'audio'],
  ...['subtitles', 'value', 'colour', 'aspect', 'quality', 'stereo', ...CREDIT_ROLES, 'unknown'],
);
const attributes = fc.array(
  fc.tuple(
    fc.constantFrom('lang', 'system', 'src', 'role', 'units', 'start', 'channel', 'type'),
    text,
  ),
  { maxLength: 3 },
);
const element = (children: fc.Arbitrary<XmltvElement[]>): fc.Arbitrary<XmltvElement> =>
  fc.record({ name, attributes, text, children });
const leaf = element(fc.constant([]));
/** Three levels: the programme's child, its children (credits → actor), theirs (actor → image). */
const programmeChildren = fc.array(
  element(fc.array(element(fc.array(leaf, { maxLength: 2 })), { maxLength: 4 })),
  { maxLength: 12 },
);

/** Any details at all, not only those a guide yields (numbering and sub-title disagreeing too). */
const s = fc.string({ maxLength: 6 });
const count = fc.option(fc.nat(), { nil: null });
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const langTexts = fc.array(fc.record({ value: s, lang: fc.constantFrom('', 'en') }), {
  maxLength: 3,
});
const systemValues = fc.array(
  fc.record({
    system: fc.constantFrom('', 'xmltv_ns', 'onscreen'),
    value: fc.oneof(s, fc.constant('1.2.')),
  }),
  { maxLength: 3 },
);
const anyDetails: fc.Arbitrary<ProgrammeDetails> = fc.record({
  subTitle: s,
  titles: langTexts,
  subTitles: langTexts,
  descs: langTexts,
  episodeNumber: nullable(
    fc.record({
      season: count,
      episode: count,
      part: count,
      seasons: count,
      episodes: count,
      parts: count,
      onScreen: nullable(s),
    }),
  ),
  episodeIds: systemValues,
  categories: fc.array(s, { maxLength: 3 }),
  keywords: fc.array(s, { maxLength: 2 }),
  images: fc.array(s, { maxLength: 2 }),
  urls: fc.array(s, { maxLength: 2 }),
  credits: fc.array(fc.record({ role: fc.constantFrom(...CREDIT_ROLES), name: s, character: s }), {
    maxLength: 3,
  }),
  date: s,
  productionCountries: fc.array(s, { maxLength: 2 }),
  language: s,
  originalLanguage: s,
  lengthSeconds: count,
  ratings: systemValues,
  starRatings: systemValues,
  isNew: fc.boolean(),
  premiere: fc.boolean(),
  lastChance: fc.boolean(),
  previouslyShown: nullable(fc.record({ start: s, channel: s })),
  video: nullable(
    fc.record({ colour: nullable(fc.boolean()), aspect: nullable(s), quality: nullable(s) }),
  ),
  audio: nullable(fc.record({ stereo: nullable(s) })),
  subtitles: fc.array(fc.record({ type: s, language: s }), { maxLength: 2 }),
});

describe('programme details, for any input', () => {
  it('the stored form round-trips what detailsOf reads, and is canonical', () => {
    fc.assert(
      fc.property(programmeChildren, (elements) => {
        const d = detailsOf(elements, (start) => `utc(${start})`);
        const v1 = v1TextsOf(elements);
        const stored = encodeDetails(d, v1);
        const decoded = decodeDetails(stored, v1);
        expect(decoded).toEqual(d);
        expect(encodeDetails(decoded, v1)).toBe(stored);
      }),
      { numRuns: RUNS },
    );
  });

  it('the stored form round-trips any details whose first title and desc and categories are the v1 texts', () => {
    fc.assert(
      fc.property(anyDetails, (d) => {
        const v1 = {
          title: d.titles[0]?.value ?? '',
          desc: d.descs[0]?.value ?? '',
          categories: d.categories,
        };
        const stored = encodeDetails(d, v1);
        expect(decodeDetails(stored, v1)).toEqual(d);
        expect(encodeDetails(structuredClone(d), v1)).toBe(stored);
      }),
      { numRuns: RUNS },
    );
  });

  it('a programme with only lang-less titles, descs and categories stores nothing', () => {
    const v1Only = fc.array(
      fc.record({
        name: fc.constantFrom('category', 'title', 'desc'),
        attributes: fc.constant([]),
        text,
        children: fc.constant([]),
      }),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(v1Only, (elements) => {
        // More than one title (or desc) is more than v1 says.
        fc.pre(elements.filter((e) => e.name === 'title').length <= 1);
        fc.pre(elements.filter((e) => e.name === 'desc').length <= 1);
        // An empty first title is stored as one title with an empty value, v1 cannot say that.
        fc.pre(elements.every((e) => e.name === 'category' || e.text.trim() !== ''));
        expect(encodeDetails(detailsOf(elements, String), v1TextsOf(elements))).toBe('');
      }),
      { numRuns: RUNS },
    );
  });

  it('xmltv_ns reads back any numbers written with whitespace anywhere', () => {
    const space = fc.constantFrom('', ' ', '\n\t ');
    const written = fc.tuple(
      count,
      count,
      count,
      count,
      count,
      count,
      fc.array(space, { minLength: 12, maxLength: 12 }),
    );
    fc.assert(
      fc.property(written, ([season, seasons, episode, episodes, part, parts, pads]) => {
        const n = (x: number | null) => (x === null ? '' : String(x));
        const total = (x: number | null, pad: string | undefined) =>
          x === null ? '' : `${pad}/${pad}${x}`;
        const value =
          `${pads[0]}${n(season)}${total(seasons, pads[1])}${pads[2]}.${pads[3]}${n(episode)}` +
          `${total(episodes, pads[4])}${pads[5]}.${pads[6]}${n(part)}${total(parts, pads[7])}${pads[8]}`;
        const plusOne = (x: number | null) => (x === null ? null : x + 1);
        expect(parseXmltvNs(value)).toEqual({
          season: plusOne(season),
          episode: plusOne(episode),
          part: plusOne(part),
          seasons,
          episodes,
          parts,
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('xmltv_ns never throws and gives only positive numbers or null', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20, unit: fc.constantFrom('.', '/', ' ', '0', '1', '9', 'x', '-') }),
        (value) => {
          const n = parseXmltvNs(value);
          expect([n.season, n.episode, n.part].every((x) => x === null || x >= 1)).toBe(true);
          expect([n.seasons, n.episodes, n.parts].every((x) => x === null || x >= 0)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
