import { describe, expect, it } from 'vitest';
import {
  decodeDetails,
  detailsOf,
  emptyDetails,
  encodeDetails,
  lengthInSeconds,
  parseXmltvNs,
  v1TextsOf,
  type ProgrammeDetails,
} from './programme-details.js';
import type { XmltvElement } from './xmltv-element.js';

/** el('actor', { role: 'Eve' }, ' Ann ', el('image', 'x')): strings are text, objects attributes. */
function el(name: string, ...parts: (string | Record<string, string> | XmltvElement)[]) {
  const element = {
    name,
    attributes: [] as [string, string][],
    text: '',
    children: [] as XmltvElement[],
  };
  for (const part of parts) {
    if (typeof part === 'string') element.text += part;
    else if ('children' in part && Array.isArray(part.children))
      element.children.push(part as XmltvElement);
    else element.attributes.push(...Object.entries(part as Record<string, string>));
  }
  return element as XmltvElement;
}

/** Marks its input, so a test sees that (and with what) the start was converted. */
const utc = (text: string) => `utc(${text})`;
const details = (...elements: XmltvElement[]) => detailsOf(elements, utc);
const nsOnly = {
  season: null,
  episode: null,
  part: null,
  seasons: null,
  episodes: null,
  parts: null,
};

describe('parseXmltvNs', () => {
  it('reads 0-based numbers and totals as given', () => {
    expect(parseXmltvNs('2.4/13.0/1')).toEqual({
      ...nsOnly,
      season: 3,
      episode: 5,
      episodes: 13,
      part: 1,
      parts: 1,
    });
    expect(parseXmltvNs('0/5.0.')).toEqual({ ...nsOnly, season: 1, seasons: 5, episode: 1 });
  });

  it('leaves blank or unreadable parts null', () => {
    expect(parseXmltvNs('.4.')).toEqual({ ...nsOnly, episode: 5 });
    expect(parseXmltvNs('')).toEqual(nsOnly);
    expect(parseXmltvNs('x.-1.2a')).toEqual(nsOnly);
    expect(parseXmltvNs('/3.1/.')).toEqual({ ...nsOnly, seasons: 3, episode: 2 });
    expect(parseXmltvNs('99999999999999999999.1.')).toEqual({ ...nsOnly, episode: 2 });
  });

  it('ignores whitespace anywhere', () => {
    expect(parseXmltvNs(' 1 2 .\n4 / 1 3\t. ')).toEqual({
      ...nsOnly,
      season: 13,
      episode: 5,
      episodes: 13,
    });
  });

  it('is lenient with extra dots and slashes', () => {
    expect(parseXmltvNs('1/3...')).toEqual({ ...nsOnly, season: 2, seasons: 3 });
    expect(parseXmltvNs('1.2.3.4')).toEqual({ ...nsOnly, season: 2, episode: 3, part: 4 });
    expect(parseXmltvNs('1/2/3.4')).toEqual({ ...nsOnly, season: 2, seasons: 2, episode: 5 });
  });
});

describe('lengthInSeconds', () => {
  it('converts each unit and rounds to whole seconds', () => {
    expect(lengthInSeconds('90', 'seconds')).toBe(90);
    expect(lengthInSeconds(' 45 ', 'minutes')).toBe(2700);
    expect(lengthInSeconds('1.5', 'hours')).toBe(5400);
    expect(lengthInSeconds('0.4', 'seconds')).toBe(0);
    expect(lengthInSeconds('0.5', 'seconds')).toBe(1);
    expect(lengthInSeconds('.25', 'minutes')).toBe(15);
  });

  it('is null for a text that is not a non-negative number or an unknown unit', () => {
    for (const text of ['', '-5', '1e3', 'abc', '1.2.3', '0x10', '5 min', 'Infinity']) {
      expect(lengthInSeconds(text, 'seconds'), text).toBeNull();
    }
    expect(lengthInSeconds('5', 'days')).toBeNull();
    expect(lengthInSeconds('5', undefined)).toBeNull();
    expect(lengthInSeconds('9'.repeat(400), 'seconds')).toBeNull();
  });
});

describe('detailsOf', () => {
  it('gives the empty details for no elements, and ignores unknown ones', () => {
    expect(details()).toEqual(emptyDetails());
    expect(details(el('gossip', 'x'), el('subtitle', 'not sub-title'))).toEqual(emptyDetails());
  });

  it('keeps every title, sub-title and desc, trimmed, with its lang or ""', () => {
    const d = details(
      el('title', { lang: 'en' }, ' News '),
      el('title', 'Nuacht'),
      el('sub-title', ' Part one '),
      el('sub-title', { lang: 'ga' }, 'Cuid a haon'),
      el('desc', { lang: 'en' }, '\n Today. \n'),
    );
    expect(d.titles).toEqual([
      { value: 'News', lang: 'en' },
      { value: 'Nuacht', lang: '' },
    ]);
    expect(d.subTitles).toEqual([
      { value: 'Part one', lang: '' },
      { value: 'Cuid a haon', lang: 'ga' },
    ]);
    expect(d.subTitle).toBe('Part one');
    expect(d.descs).toEqual([{ value: 'Today.', lang: 'en' }]);
  });

  it('keeps every episode-num and numbers the episode from the first xmltv_ns and onscreen', () => {
    const d = details(
      el('episode-num', { system: 'dd_progid' }, 'EP1.2'),
      el('episode-num', { system: 'onscreen' }, ' S3E5 '),
      el('episode-num', { system: 'xmltv_ns' }, ' 2.4/13. '),
      el('episode-num', { system: 'xmltv_ns' }, '7.7.'),
      el('episode-num', 'no system'),
    );
    expect(d.episodeIds).toEqual([
      { system: 'dd_progid', value: 'EP1.2' },
      { system: 'onscreen', value: 'S3E5' },
      { system: 'xmltv_ns', value: '2.4/13.' },
      { system: 'xmltv_ns', value: '7.7.' },
      { system: '', value: 'no system' },
    ]);
    expect(d.episodeNumber).toEqual({
      ...nsOnly,
      season: 3,
      episode: 5,
      episodes: 13,
      onScreen: 'S3E5',
    });
    expect(details(el('episode-num', { system: 'onscreen' }, 'Ep 4')).episodeNumber).toEqual({
      ...nsOnly,
      onScreen: 'Ep 4',
    });
    expect(details(el('episode-num', { system: 'xmltv_ns' }, '.1.')).episodeNumber).toEqual({
      ...nsOnly,
      episode: 2,
      onScreen: null,
    });
    // Without a system attribute, onscreen: the DTD's default (an explicit one comes first).
    expect(details(el('episode-num', 'Episode 12')).episodeNumber).toEqual({
      ...nsOnly,
      onScreen: 'Episode 12',
    });
    expect(details(el('title', 'x')).episodeNumber).toBeNull();
  });

  it('keeps categories, keywords, countries and urls in order, trimmed', () => {
    const d = details(
      el('category', ' Sport '),
      el('keyword', 'rugby'),
      el('category', 'News'),
      el('country', 'IE'),
      el('url', ' https://a.ie/1 '),
      el('country', 'GB'),
      el('url', 'https://a.ie/2'),
    );
    expect(d.categories).toEqual(['Sport', 'News']);
    expect(d.keywords).toEqual(['rugby']);
    expect(d.productionCountries).toEqual(['IE', 'GB']);
    expect(d.urls).toEqual(['https://a.ie/1', 'https://a.ie/2']);
  });

  it('takes images from icon src and image text of the programme itself, in order', () => {
    const d = details(
      el('image', ' https://i/1.jpg '),
      el('icon', { src: 'https://i/2.png', width: '10' }),
      el('icon', { width: '10' }),
      el('credits', el('actor', 'Ann', el('image', 'https://i/ann.jpg'))),
      el('rating', el('value', 'PG'), el('icon', { src: 'https://i/pg.png' })),
      el('image', 'https://i/3.jpg'),
    );
    expect(d.images).toEqual(['https://i/1.jpg', 'https://i/2.png', 'https://i/3.jpg']);
  });

  it('reads credits in document order, actors with their character, names without children', () => {
    const d = details(
      el(
        'credits',
        el('director', ' Dee '),
        el('actor', { role: ' Eve ' }, ' Ann ', el('image', 'https://i/ann.jpg'), el('url', 'u')),
        el('actor', 'Bob'),
        el('stuntman', 'Skipped'),
        el('guest', { role: 'Host' }, 'Gus'),
      ),
      el('credits', el('presenter', 'Pat'), el('commentator', 'Col')),
    );
    expect(d.credits).toEqual([
      { role: 'director', name: 'Dee', character: '' },
      { role: 'actor', name: 'Ann', character: 'Eve' },
      { role: 'actor', name: 'Bob', character: '' },
      { role: 'guest', name: 'Gus', character: '' },
      { role: 'presenter', name: 'Pat', character: '' },
      { role: 'commentator', name: 'Col', character: '' },
    ]);
  });

  it('takes the first date, language, orig-language and length', () => {
    const d = details(
      el('date', ' 1999 '),
      el('date', '2000'),
      el('language', 'en'),
      el('language', 'ga'),
      el('orig-language', 'fr'),
      el('length', { units: 'minutes' }, '30'),
      el('length', { units: 'minutes' }, '60'),
    );
    expect([d.date, d.language, d.originalLanguage, d.lengthSeconds]).toEqual([
      '1999',
      'en',
      'fr',
      1800,
    ]);
    expect(details(el('length', '30')).lengthSeconds).toBeNull();
    expect(
      details(el('length', { units: 'minutes' }, 'half'), el('length', { units: 'minutes' }, '30'))
        .lengthSeconds,
    ).toBeNull();
  });

  it('reads ratings and star ratings as system and value', () => {
    const d = details(
      el('rating', { system: 'IFCO' }, el('icon', { src: 'x' }), el('value', ' 12A ')),
      el('rating', el('value', 'PG')),
      el('star-rating', el('value', '3/5')),
      el('star-rating', { system: 'imdb' }),
      el('rating', { system: 'DStv' }, '18'),
    );
    expect(d.ratings).toEqual([
      { system: 'IFCO', value: '12A' },
      { system: '', value: 'PG' },
      // A value written as the rating's own text (DStv's guides) is kept.
      { system: 'DStv', value: '18' },
    ]);
    expect(d.starRatings).toEqual([
      { system: '', value: '3/5' },
      { system: 'imdb', value: '' },
    ]);
  });

  it('sets new, premiere and last-chance by presence', () => {
    expect(details(el('new'), el('last-chance', 'Final showing'))).toMatchObject({
      isNew: true,
      premiere: false,
      lastChance: true,
    });
    expect(details(el('premiere', 'First time on TV')).premiere).toBe(true);
  });

  it('reads the first previously-shown, its start in UTC form', () => {
    expect(
      details(
        el('previously-shown', { start: '20240101 +0100', channel: 'rte1.ie' }),
        el('previously-shown', { start: '2023' }),
      ).previouslyShown,
    ).toEqual({ start: 'utc(20240101 +0100)', channel: 'rte1.ie' });
    expect(details(el('previously-shown')).previouslyShown).toEqual({ start: '', channel: '' });
    expect(details().previouslyShown).toBeNull();
  });

  it('reads video colour yes/no/other, aspect and quality', () => {
    const video = (...children: XmltvElement[]) => details(el('video', ...children)).video;
    expect(video(el('colour', ' yes '), el('aspect', '16:9'), el('quality', 'HDTV'))).toEqual({
      colour: true,
      aspect: '16:9',
      quality: 'HDTV',
    });
    expect(video(el('colour', 'no'))).toEqual({ colour: false, aspect: null, quality: null });
    expect(video(el('colour', 'sepia'))).toEqual({ colour: null, aspect: null, quality: null });
    expect(
      details(el('video', el('aspect', '4:3')), el('video', el('aspect', '16:9'))).video?.aspect,
    ).toBe('4:3');
    expect(details().video).toBeNull();
  });

  it('reads audio stereo and every subtitles element', () => {
    expect(details(el('audio', el('stereo', ' dolby digital '))).audio).toEqual({
      stereo: 'dolby digital',
    });
    expect(details(el('audio', el('present', 'yes'))).audio).toEqual({ stereo: null });
    expect(details().audio).toBeNull();
    expect(
      details(el('subtitles', { type: 'teletext' }, el('language', ' en ')), el('subtitles'))
        .subtitles,
    ).toEqual([
      { type: 'teletext', language: 'en' },
      { type: '', language: '' },
    ]);
  });
});

describe('v1TextsOf', () => {
  it('takes the first title and desc and every category, trimmed', () => {
    const elements = [
      el('desc', ' D1 '),
      el('title', { lang: 'en' }, ' T1 '),
      el('title', 'T2'),
      el('category', ' A '),
      el('desc', 'D2'),
      el('category', ''),
    ];
    expect(v1TextsOf(elements)).toEqual({ title: 'T1', desc: 'D1', categories: ['A', ''] });
    expect(v1TextsOf([])).toEqual({ title: '', desc: '', categories: [] });
  });
});

describe('stored form', () => {
  const roundTrip = (...elements: XmltvElement[]) => {
    const d = details(...elements);
    const v1 = v1TextsOf(elements);
    const text = encodeDetails(d, v1);
    expect(decodeDetails(text, v1)).toEqual(d);
    return text;
  };

  it('is empty for a programme with only the v1 fields, and decodes back from it', () => {
    expect(
      roundTrip(
        el('title', ' News '),
        el('desc', 'Today.'),
        el('category', 'News'),
        el('category', 'Irish'),
      ),
    ).toBe('');
    expect(roundTrip()).toBe('');
    expect(decodeDetails('', { title: 'T', desc: '', categories: ['C'] })).toEqual({
      ...emptyDetails(),
      titles: [{ value: 'T', lang: '' }],
      categories: ['C'],
    });
  });

  it('stores what the v1 texts already say only once', () => {
    expect(
      roundTrip(el('title', { lang: 'en' }, 'News'), el('desc', { lang: 'en' }, 'Today.')),
    ).toBe('{"t":[[0,"en"]],"d":[[0,"en"]]}');
    expect(roundTrip(el('title', 'News'), el('title', { lang: 'ga' }, 'Nuacht'))).toBe(
      '{"t":[0,["Nuacht","ga"]]}',
    );
    // The episode numbering is read again from the ids, not stored.
    expect(roundTrip(el('episode-num', { system: 'xmltv_ns' }, '0.1.'))).toBe(
      '{"e":[["0.1.","xmltv_ns"]]}',
    );
    expect(roundTrip(el('sub-title', 'Part one'))).toBe('{"s":["Part one"]}');
  });

  it('round-trips every field', () => {
    const text = roundTrip(
      el('title', { lang: 'en' }, 'News'),
      el('sub-title', { lang: 'en' }, 'Late'),
      el('desc', 'Today.'),
      el('desc', { lang: 'ga' }, 'Inniu.'),
      el('credits', el('actor', { role: 'Eve' }, 'Ann'), el('writer', 'Wes')),
      el('date', '2024'),
      el('category', 'News'),
      el('keyword', 'world'),
      el('language', 'en'),
      el('orig-language', 'ga'),
      el('length', { units: 'minutes' }, '30'),
      el('icon', { src: 'https://i/1.png' }),
      el('url', 'https://a.ie'),
      el('country', 'IE'),
      el('episode-num', { system: 'xmltv_ns' }, '1.2.'),
      el('episode-num', { system: 'onscreen' }, 'S2E3'),
      el('video', el('colour', 'no'), el('aspect', '4:3')),
      el('audio', el('stereo', 'mono')),
      el('previously-shown', { start: '2023', channel: 'c' }),
      el('premiere'),
      el('new'),
      el('last-chance'),
      el('subtitles', { type: 'onscreen' }, el('language', 'en')),
      el('rating', { system: 'IFCO' }, el('value', 'PG')),
      el('star-rating', el('value', '4/5')),
    );
    // The merge compares stored texts byte for byte: other bytes for the same details would
    // make the next ingest of every stored programme a change (records, webhooks).
    expect(text).toBe(
      '{"t":[[0,"en"]],"s":[["Late","en"]],"d":[0,["Inniu.","ga"]],"e":[["1.2.","xmltv_ns"],["S2E3","onscreen"]],"k":["world"],"i":["https://i/1.png"],"u":["https://a.ie"],"cr":[["actor","Ann","Eve"],["writer","Wes"]],"dt":"2024","pc":["IE"],"l":"en","ol":"ga","len":1800,"r":[["PG","IFCO"]],"sr":["4/5"],"nw":1,"pr":1,"lc":1,"ps":["utc(2023)","c"],"v":[false,"4:3",null],"a":["mono"],"sb":[["onscreen","en"]]}',
    );
  });

  it('round-trips details the guide did not derive (sub-title and numbering stored when they differ)', () => {
    const v1 = { title: 'T', desc: '', categories: [] };
    const d: ProgrammeDetails = {
      ...emptyDetails(),
      titles: [{ value: 'T', lang: '' }],
      subTitles: [{ value: 'a', lang: '' }],
      subTitle: 'b',
      episodeIds: [{ system: 'xmltv_ns', value: '1..' }],
      episodeNumber: null,
    };
    const text = encodeDetails(d, v1);
    expect(JSON.parse(text)).toMatchObject({ st: 'b', n: null });
    expect(decodeDetails(text, v1)).toEqual(d);
  });

  it('is deterministic and changes with the details', () => {
    const make = (title: string) => [
      el('title', { lang: 'en' }, title),
      el('credits', el('actor', { role: 'R' }, 'A')),
    ];
    const text = (elements: XmltvElement[]) =>
      encodeDetails(details(...elements), v1TextsOf(elements));
    expect(text(make('X'))).toBe(text(make('X')));
    const changed = [...make('X'), el('new')];
    expect(text(changed)).not.toBe(text(make('X')));
  });

  it('refuses a broken text with a clear error, and ignores keys it does not know', () => {
    const v1 = { title: '', desc: '', categories: [] };
    expect(() => decodeDetails('{"t":', v1)).toThrow(/not JSON/);
    expect(() => decodeDetails('[1]', v1)).toThrow(/not a JSON object/);
    expect(() => decodeDetails('null', v1)).toThrow(/not a JSON object/);
    expect(() => decodeDetails('{"t":5}', v1)).toThrow(/broken "t"/);
    expect(() => decodeDetails('{"cr":[["villain","X"]]}', v1)).toThrow(/broken "cr"/);
    expect(() => decodeDetails('{"n":[1,2,3]}', v1)).toThrow(/broken "n"/);
    expect(() => decodeDetails('{"nw":true}', v1)).toThrow(/broken "nw"/);
    expect(() => decodeDetails('{"s":[0]}', v1)).toThrow(/broken "s"/);
    expect(decodeDetails('{"later":1}', v1)).toEqual(emptyDetails());
  });
});
