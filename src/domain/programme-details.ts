import { attributeOf, type XmltvElement } from './xmltv-element.js';

/** A text with its language (`lang` attribute, '' when absent). */
export interface LangText {
  value: string;
  lang: string;
}

/** A value with the system it is given in (`system` attribute, '' when absent). */
export interface SystemValue {
  system: string;
  value: string;
}

/** The episode numbering, 1-based, each number null where the guide leaves it blank. */
export interface EpisodeNumber {
  season: number | null;
  episode: number | null;
  part: number | null;
  seasons: number | null;
  episodes: number | null;
  parts: number | null;
  /** The `system="onscreen"` text (an episode-num without a system is onscreen), or null. */
  onScreen: string | null;
}

export const CREDIT_ROLES = [
  'director',
  'actor',
  'writer',
  'adapter',
  'producer',
  'composer',
  'editor',
  'presenter',
  'commentator',
  'guest',
] as const;
export type CreditRole = (typeof CREDIT_ROLES)[number];

export interface Credit {
  role: CreditRole;
  name: string;
  /** An actor's `role` attribute, else ''. */
  character: string;
}

export interface PreviouslyShown {
  /** In the API's UTC form when it parses, '' when absent. */
  start: string;
  channel: string;
}

export interface Video {
  colour: boolean | null;
  aspect: string | null;
  quality: string | null;
}

export interface Audio {
  stereo: string | null;
}

export interface Subtitles {
  type: string;
  language: string;
}

/** Everything a `<programme>` says beyond the v1 fields (domain/programme.ts). */
export interface ProgrammeDetails {
  subTitle: string;
  titles: LangText[];
  subTitles: LangText[];
  descs: LangText[];
  episodeNumber: EpisodeNumber | null;
  episodeIds: SystemValue[];
  categories: string[];
  keywords: string[];
  images: string[];
  urls: string[];
  credits: Credit[];
  date: string;
  productionCountries: string[];
  language: string;
  originalLanguage: string;
  lengthSeconds: number | null;
  ratings: SystemValue[];
  starRatings: SystemValue[];
  isNew: boolean;
  premiere: boolean;
  lastChance: boolean;
  previouslyShown: PreviouslyShown | null;
  video: Video | null;
  audio: Audio | null;
  subtitles: Subtitles[];
}

/** The v1 fields a stored details text may share rather than repeat (see encodeDetails). */
export interface V1Texts {
  title: string;
  desc: string;
  /** The v1 categories, before they are joined. */
  categories: readonly string[];
}

/** XML whitespace: the only characters xmltv_ns lets appear anywhere. */
function isXmlSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * `system="xmltv_ns"`: `season[/seasons] . episode[/episodes] . part[/parts]`, each first number
 * 0-based, each total a count. Lenient (a guide's typo must not cost the programme): a blank or
 * non-numeric value is null, anything after a third dot or a second slash is ignored.
 */
export function parseXmltvNs(value: string): Omit<EpisodeNumber, 'onScreen'> {
  // In text order: season, seasons, episode, episodes, part, parts.
  const slots: (number | null)[] = [null, null, null, null, null, null];
  let dots = 0;
  let slashes = 0;
  let digits = 0;
  let number = 0;
  let bad = false;
  const close = () => {
    if (slashes < 2 && digits > 0 && !bad && number < Number.MAX_SAFE_INTEGER) {
      slots[dots * 2 + slashes] = number;
    }
    digits = 0;
    number = 0;
    bad = false;
  };
  for (let i = 0; i < value.length && dots < 3; i++) {
    const code = value.charCodeAt(i);
    if (code === 46 /* . */) {
      close();
      dots++;
      slashes = 0;
    } else if (code === 47 /* / */) {
      close();
      slashes++;
    } else if (code >= 48 && code <= 57) {
      number = number * 10 + (code - 48);
      digits++;
    } else if (!isXmlSpace(code)) bad = true;
  }
  if (dots < 3) close();
  const [season, seasons, episode, episodes, part, parts] = slots;
  const plusOne = (n: number | null | undefined) => (n == null ? null : n + 1);
  return {
    season: plusOne(season),
    episode: plusOne(episode),
    part: plusOne(part),
    seasons: seasons ?? null,
    episodes: episodes ?? null,
    parts: parts ?? null,
  };
}

const NON_NEGATIVE_DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** `<length units="…">text</length>` in whole seconds, or null when either is unreadable. */
export function lengthInSeconds(text: string, units: string | undefined): number | null {
  let perUnit: number;
  switch (units?.trim()) {
    case 'seconds':
      perUnit = 1;
      break;
    case 'minutes':
      perUnit = 60;
      break;
    case 'hours':
      perUnit = 3600;
      break;
    default:
      return null;
  }
  const trimmed = text.trim();
  if (!NON_NEGATIVE_DECIMAL.test(trimmed)) return null;
  const seconds = Math.round(Number(trimmed) * perUnit);
  return Number.isSafeInteger(seconds) ? seconds : null;
}

/**
 * The episode numbering a list of `<episode-num>`s gives: null without any, else the first
 * xmltv_ns one (all null without one) and the first onscreen text. A function of the ids alone,
 * so the stored form need not repeat it (see encodeDetails).
 */
export function episodeNumberOf(ids: readonly SystemValue[]): EpisodeNumber | null {
  if (ids.length === 0) return null;
  const ns = ids.find((id) => id.system === 'xmltv_ns');
  // An episode-num without a system is onscreen: the DTD's default for the attribute.
  const onScreen = ids.find((id) => id.system === 'onscreen') ?? ids.find((id) => id.system === '');
  const n = parseXmltvNs(ns?.value ?? '');
  // Not `{ ...n, onScreen }`: V8 spreads this object some twenty times slower.
  return {
    season: n.season,
    episode: n.episode,
    part: n.part,
    seasons: n.seasons,
    episodes: n.episodes,
    parts: n.parts,
    onScreen: onScreen?.value ?? null,
  };
}

const CREDIT_ROLE_SET: ReadonlySet<string> = new Set(CREDIT_ROLES);
function isCreditRole(name: string): name is CreditRole {
  return CREDIT_ROLE_SET.has(name);
}

/** The trimmed text of the element's first child by that name, or undefined. */
function childText(element: XmltvElement, name: string): string | undefined {
  for (const child of element.children) if (child.name === name) return child.text.trim();
  return undefined;
}

function langText(element: XmltvElement): LangText {
  return { value: element.text.trim(), lang: attributeOf(element, 'lang') ?? '' };
}

/**
 * A rating's value is its `<value>`; some guides (DStv's) write the value as the rating's own
 * text instead, which is taken rather than lost.
 */
function ratingOf(element: XmltvElement): SystemValue {
  const value = childText(element, 'value') ?? element.text.trim();
  return { system: attributeOf(element, 'system') ?? '', value };
}

function creditsIn(element: XmltvElement, credits: Credit[]): void {
  for (const person of element.children) {
    if (!isCreditRole(person.name)) continue;
    const character = person.name === 'actor' ? (attributeOf(person, 'role')?.trim() ?? '') : '';
    // Own text only: an actor's <image>/<url> children are not part of the name.
    credits.push({ role: person.name, name: person.text.trim(), character });
  }
}

function videoOf(element: XmltvElement): Video {
  const colour = childText(element, 'colour');
  return {
    colour: colour === 'yes' ? true : colour === 'no' ? false : null,
    aspect: childText(element, 'aspect') ?? null,
    quality: childText(element, 'quality') ?? null,
  };
}

/** What a programme with no element at all has; every list fresh. */
export function emptyDetails(): ProgrammeDetails {
  return {
    subTitle: '',
    titles: [],
    subTitles: [],
    descs: [],
    episodeNumber: null,
    episodeIds: [],
    categories: [],
    keywords: [],
    images: [],
    urls: [],
    credits: [],
    date: '',
    productionCountries: [],
    language: '',
    originalLanguage: '',
    lengthSeconds: null,
    ratings: [],
    starRatings: [],
    isNew: false,
    premiere: false,
    lastChance: false,
    previouslyShown: null,
    video: null,
    audio: null,
    subtitles: [],
  };
}

/**
 * The rich data of one `<programme>` from its child elements (document order), by the XMLTV
 * DTD's names. Unknown elements are ignored; a value that cannot be read is left at its default.
 * `utcForm` converts a previously-shown start to the API's UTC form.
 */
export function detailsOf(
  elements: readonly XmltvElement[],
  utcForm: (text: string) => string,
): ProgrammeDetails {
  const d = emptyDetails();
  // "First one wins" fields: whether one has been seen yet.
  let date = false;
  let language = false;
  let originalLanguage = false;
  let length = false;
  for (const element of elements) {
    switch (element.name) {
      case 'title':
        d.titles.push(langText(element));
        break;
      case 'sub-title':
        d.subTitles.push(langText(element));
        break;
      case 'desc':
        d.descs.push(langText(element));
        break;
      case 'episode-num':
        d.episodeIds.push({
          system: attributeOf(element, 'system') ?? '',
          value: element.text.trim(),
        });
        break;
      case 'category':
        d.categories.push(element.text.trim());
        break;
      case 'keyword':
        d.keywords.push(element.text.trim());
        break;
      case 'icon': {
        const src = attributeOf(element, 'src');
        if (src !== undefined) d.images.push(src.trim());
        break;
      }
      case 'image':
        d.images.push(element.text.trim());
        break;
      case 'url':
        d.urls.push(element.text.trim());
        break;
      case 'credits':
        creditsIn(element, d.credits);
        break;
      case 'date':
        if (!date) d.date = element.text.trim();
        date = true;
        break;
      case 'country':
        d.productionCountries.push(element.text.trim());
        break;
      case 'language':
        if (!language) d.language = element.text.trim();
        language = true;
        break;
      case 'orig-language':
        if (!originalLanguage) d.originalLanguage = element.text.trim();
        originalLanguage = true;
        break;
      case 'length':
        if (!length) d.lengthSeconds = lengthInSeconds(element.text, attributeOf(element, 'units'));
        length = true;
        break;
      case 'rating':
        d.ratings.push(ratingOf(element));
        break;
      case 'star-rating':
        d.starRatings.push(ratingOf(element));
        break;
      case 'new':
        d.isNew = true;
        break;
      case 'premiere':
        d.premiere = true;
        break;
      case 'last-chance':
        d.lastChance = true;
        break;
      case 'previously-shown':
        if (d.previouslyShown === null) {
          const start = attributeOf(element, 'start');
          d.previouslyShown = {
            start: start === undefined ? '' : utcForm(start),
            channel: attributeOf(element, 'channel') ?? '',
          };
        }
        break;
      case 'video':
        d.video ??= videoOf(element);
        break;
      case 'audio':
        d.audio ??= { stereo: childText(element, 'stereo') ?? null };
        break;
      case 'subtitles':
        d.subtitles.push({
          type: attributeOf(element, 'type') ?? '',
          language: childText(element, 'language') ?? '',
        });
        break;
    }
  }
  d.subTitle = d.subTitles[0]?.value ?? '';
  d.episodeNumber = episodeNumberOf(d.episodeIds);
  return d;
}

/** The v1 texts as the ingest derives them: first title, first desc, every category, trimmed. */
export function v1TextsOf(elements: readonly XmltvElement[]): V1Texts {
  let title: string | undefined;
  let desc: string | undefined;
  const categories: string[] = [];
  for (const element of elements) {
    if (element.name === 'title') title ??= element.text.trim();
    else if (element.name === 'desc') desc ??= element.text.trim();
    else if (element.name === 'category') categories.push(element.text.trim());
  }
  return { title: title ?? '', desc: desc ?? '', categories };
}

/*
 * The stored form: one text per programme, '' for the common programme that says nothing beyond
 * its v1 fields, else a JSON object holding only the fields that differ from their default. A
 * field's default may depend on v1 (titles, descs, categories) or on fields decoded before it
 * (subTitle, episodeNumber), so neither is stored twice. Lists of texts with an attribute store an
 * item as the value alone when the attribute is '', else [value, attribute]; the first title or
 * desc stores 0 for a value equal to the v1 text.
 */

type Stored = Record<string, unknown>;

interface FieldCodec {
  key: string;
  /**
   * The field as stored, or undefined when it is its fallback (then nothing is stored); checked
   * without building the fallback, as it runs for every programme ingested.
   */
  store(d: ProgrammeDetails, v1: V1Texts): unknown;
  /** Sets the field from its stored value, or from its fallback when nothing is (undefined). */
  load(stored: unknown, d: ProgrammeDetails, v1: V1Texts): void;
}

/**
 * A field's codec. Each field's `store` and `load` are functions of their own, not one shared
 * function reading `d[name]` for every field: V8 keeps what it learns of a function for all its
 * closures, so the shared reads and calls saw every field and ran megamorphic: the parse took
 * 4 % longer (Onair's pipeline without storage, `node bench/ingest.mjs --cases none`;
 * bench/INGEST.md). The helpers below share theirs among at most four fields, which V8 still
 * handles as a few cases.
 */
function codec(key: string, store: FieldCodec['store'], load: FieldCodec['load']): FieldCodec {
  return { key, store, load };
}

/** Deep equality of plain data (what ProgrammeDetails is made of). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => same((a as Stored)[key], (b as Stored)[key]));
}

function fail(): never {
  throw new Error('unexpected value');
}
function list(x: unknown): unknown[] {
  return Array.isArray(x) ? (x as unknown[]) : fail();
}
function str(x: unknown): string {
  return typeof x === 'string' ? x : fail();
}
function strOrNull(x: unknown): string | null {
  return x === null ? null : str(x);
}
function strs(x: unknown): string[] {
  return list(x).map(str);
}
/** Null when stored as null or not stored (the fallback), else what `read` reads. */
function nullOr<T>(x: unknown, read: (x: unknown) => T): T | null {
  return x === undefined || x === null ? null : read(x);
}
function tuple(x: unknown, length: number): unknown[] {
  const items = list(x);
  return items.length === length ? items : fail();
}

/** A value with an attribute: the value alone when the attribute is '', else [value, attribute]. */
function writePair(value: unknown, attribute: string): unknown {
  return attribute === '' ? value : [value, attribute];
}
function readPair(x: unknown): [value: unknown, attribute: string] {
  if (!Array.isArray(x)) return [x, ''];
  const [value, attribute] = tuple(x, 2);
  return [value, str(attribute)];
}

/** LangTexts; `v1Text` given, a first value equal to it is stored as 0. */
function writeLangTexts(texts: readonly LangText[], v1Text?: string): unknown {
  return texts.map((t, i) => writePair(i === 0 && t.value === v1Text ? 0 : t.value, t.lang));
}
function readLangTexts(x: unknown, v1Text?: string): LangText[] {
  return list(x).map((item, i) => {
    const [value, lang] = readPair(item);
    const isV1 = i === 0 && value === 0 && v1Text !== undefined;
    return { value: isV1 ? v1Text : str(value), lang };
  });
}
/** The titles (or descs) a programme with only that v1 text has. */
function v1LangTexts(text: string): LangText[] {
  return text === '' ? [] : [{ value: text, lang: '' }];
}

function writeSystemValues(values: readonly SystemValue[]): unknown {
  return values.map((v) => writePair(v.value, v.system));
}
function readSystemValues(x: unknown): SystemValue[] {
  return list(x).map((item) => {
    const [value, system] = readPair(item);
    return { system, value: str(value) };
  });
}

function readCredit(x: unknown): Credit {
  const items = list(x);
  if (items.length !== 2 && items.length !== 3) fail();
  const role = str(items[0]);
  if (!isCreditRole(role)) fail();
  return { role, name: str(items[1]), character: items.length === 3 ? str(items[2]) : '' };
}

function countOrNull(x: unknown): number | null {
  return x === null
    ? null
    : typeof x === 'number' && Number.isSafeInteger(x) && x >= 0
      ? x
      : fail();
}
function readEpisodeNumber(x: unknown): EpisodeNumber | null {
  if (x === null) return null;
  const [season, episode, part, seasons, episodes, parts, onScreen] = tuple(x, 7);
  return {
    season: countOrNull(season),
    episode: countOrNull(episode),
    part: countOrNull(part),
    seasons: countOrNull(seasons),
    episodes: countOrNull(episodes),
    parts: countOrNull(parts),
    onScreen: strOrNull(onScreen),
  };
}

function flag(key: string, name: 'isNew' | 'premiere' | 'lastChance'): FieldCodec {
  return codec(
    key,
    (d) => (d[name] ? 1 : undefined),
    (x, d) => {
      d[name] = x === undefined ? false : x === 1 ? true : fail();
    },
  );
}
function strings(
  key: string,
  name: 'keywords' | 'images' | 'urls' | 'productionCountries',
): FieldCodec {
  return codec(
    key,
    (d) => (d[name].length === 0 ? undefined : d[name]),
    (x, d) => {
      d[name] = x === undefined ? [] : strs(x);
    },
  );
}
function text(key: string, name: 'date' | 'language' | 'originalLanguage'): FieldCodec {
  return codec(
    key,
    (d) => (d[name] === '' ? undefined : d[name]),
    (x, d) => {
      d[name] = x === undefined ? '' : str(x);
    },
  );
}
function systemValues(key: string, name: 'episodeIds' | 'ratings' | 'starRatings'): FieldCodec {
  return codec(
    key,
    (d) => (d[name].length === 0 ? undefined : writeSystemValues(d[name])),
    (x, d) => {
      d[name] = x === undefined ? [] : readSystemValues(x);
    },
  );
}

/** In decode order: a fallback may read only the fields before it. The keys are stored data. */
const CODECS: readonly FieldCodec[] = [
  codec(
    't',
    (d, v1) => (isV1LangTexts(d.titles, v1.title) ? undefined : writeLangTexts(d.titles, v1.title)),
    (x, d, v1) => {
      d.titles = x === undefined ? v1LangTexts(v1.title) : readLangTexts(x, v1.title);
    },
  ),
  codec(
    's',
    (d) => (d.subTitles.length === 0 ? undefined : writeLangTexts(d.subTitles)),
    (x, d) => {
      d.subTitles = x === undefined ? [] : readLangTexts(x);
    },
  ),
  codec(
    'st',
    (d) => (d.subTitle === (d.subTitles[0]?.value ?? '') ? undefined : d.subTitle),
    (x, d) => {
      d.subTitle = x === undefined ? (d.subTitles[0]?.value ?? '') : str(x);
    },
  ),
  codec(
    'd',
    (d, v1) => (isV1LangTexts(d.descs, v1.desc) ? undefined : writeLangTexts(d.descs, v1.desc)),
    (x, d, v1) => {
      d.descs = x === undefined ? v1LangTexts(v1.desc) : readLangTexts(x, v1.desc);
    },
  ),
  systemValues('e', 'episodeIds'),
  codec(
    'n',
    (d) => {
      const n = d.episodeNumber;
      const fallback =
        d.episodeIds.length === 0 ? n === null : same(n, episodeNumberOf(d.episodeIds));
      return fallback
        ? undefined
        : n && [n.season, n.episode, n.part, n.seasons, n.episodes, n.parts, n.onScreen];
    },
    (x, d) => {
      d.episodeNumber = x === undefined ? episodeNumberOf(d.episodeIds) : readEpisodeNumber(x);
    },
  ),
  codec(
    'c',
    (d, v1) => (sameStrings(d.categories, v1.categories) ? undefined : d.categories),
    (x, d, v1) => {
      d.categories = x === undefined ? [...v1.categories] : strs(x);
    },
  ),
  strings('k', 'keywords'),
  strings('i', 'images'),
  strings('u', 'urls'),
  codec(
    'cr',
    (d) =>
      d.credits.length === 0
        ? undefined
        : d.credits.map((c) =>
            c.character === '' ? [c.role, c.name] : [c.role, c.name, c.character],
          ),
    (x, d) => {
      d.credits = x === undefined ? [] : list(x).map(readCredit);
    },
  ),
  text('dt', 'date'),
  strings('pc', 'productionCountries'),
  text('l', 'language'),
  text('ol', 'originalLanguage'),
  codec(
    'len',
    (d) => (d.lengthSeconds === null ? undefined : d.lengthSeconds),
    (x, d) => {
      d.lengthSeconds = x === undefined ? null : countOrNull(x);
    },
  ),
  systemValues('r', 'ratings'),
  systemValues('sr', 'starRatings'),
  flag('nw', 'isNew'),
  flag('pr', 'premiere'),
  flag('lc', 'lastChance'),
  codec(
    'ps',
    (d) => {
      const p = d.previouslyShown;
      return p === null ? undefined : [p.start, p.channel];
    },
    (x, d) => {
      d.previouslyShown = nullOr(x, (item) => {
        const [start, channel] = tuple(item, 2);
        return { start: str(start), channel: str(channel) };
      });
    },
  ),
  codec(
    'v',
    (d) => {
      const v = d.video;
      return v === null ? undefined : [v.colour, v.aspect, v.quality];
    },
    (x, d) => {
      d.video = nullOr(x, (item) => {
        const [colour, aspect, quality] = tuple(item, 3);
        return {
          colour: colour === null || typeof colour === 'boolean' ? colour : fail(),
          aspect: strOrNull(aspect),
          quality: strOrNull(quality),
        };
      });
    },
  ),
  codec(
    'a',
    (d) => (d.audio === null ? undefined : [d.audio.stereo]),
    (x, d) => {
      d.audio = nullOr(x, (item) => ({ stereo: strOrNull(tuple(item, 1)[0]) }));
    },
  ),
  codec(
    'sb',
    (d) => (d.subtitles.length === 0 ? undefined : d.subtitles.map((t) => [t.type, t.language])),
    (x, d) => {
      d.subtitles =
        x === undefined
          ? []
          : list(x).map((item) => {
              const [type, language] = tuple(item, 2);
              return { type: str(type), language: str(language) };
            });
    },
  ),
];

/**
 * The stored text of a programme's details: '' when they are what its v1 texts alone give, else
 * JSON of the fields that differ. Deterministic (the merge compares texts to decide "changed").
 */
export function encodeDetails(details: ProgrammeDetails, v1: V1Texts): string {
  // Each field is checked against its fallback without building it: built whole and compared
  // deeply, encoding was most of an ingest's cost of rich data (callgrind over a corpus guide).
  // The fields that differ go into one object, in CODECS' order (no key is an integer, so JSON
  // keeps that order), written by one JSON.stringify: a call per field, joined, took a third
  // more instructions (22,500 against 14,800 a programme of the corpus guide: `node
  // bench/details-encoding.mjs` under callgrind, bench/INGEST.md). The tests pin the bytes.
  const stored: Stored = {};
  let any = false;
  for (const field of CODECS) {
    const value = field.store(details, v1);
    if (value !== undefined) {
      stored[field.key] = value;
      any = true;
    }
  }
  return any ? JSON.stringify(stored) : '';
}

/** Whether texts are those a programme with only the v1 text has (v1LangTexts). */
function isV1LangTexts(texts: readonly LangText[], text: string): boolean {
  if (text === '') return texts.length === 0;
  const first = texts[0];
  return texts.length === 1 && first !== undefined && first.value === text && first.lang === '';
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The details from their stored text and the programme's v1 texts; throws on a broken text. */
export function decodeDetails(text: string, v1: V1Texts): ProgrammeDetails {
  let stored: unknown = {};
  if (text !== '') {
    try {
      stored = JSON.parse(text);
    } catch {
      throw new Error(`Stored programme details are not JSON: ${text.slice(0, 60)}`);
    }
  }
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    throw new Error(`Stored programme details are not a JSON object: ${text.slice(0, 60)}`);
  }
  const d = emptyDetails();
  for (const field of CODECS) {
    // Unknown keys are ignored: a later version may store more than this one reads.
    const value = Object.hasOwn(stored, field.key) ? (stored as Stored)[field.key] : undefined;
    try {
      field.load(value, d, v1);
    } catch {
      throw new Error(
        `Stored programme details have a broken "${field.key}": ${JSON.stringify(value).slice(0, 60)}`,
      );
    }
  }
  return d;
}
