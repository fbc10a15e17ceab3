import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IngestError,
  MAX_ELEMENT_DEPTH,
  MAX_PROGRAMME_CHARS,
  MAX_PROGRAMME_ELEMENTS,
  MAX_TOKEN_CHARS,
  readXmltv,
  type XmltvChannel,
  type XmltvProgramme,
  type XmltvReadOptions,
} from './xmltv-reader.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/xmltv');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

async function* chunked(data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

async function read(data: Uint8Array | string, chunkSize = 1 << 16, options?: XmltvReadOptions) {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const channels: XmltvChannel[] = [];
  const programmes: XmltvProgramme[] = [];
  const result = await readXmltv(
    chunked(bytes, chunkSize),
    { channel: (c) => channels.push(c), programme: (p) => programmes.push(p) },
    options,
  );
  return { channels, programmes, result };
}

/** The IngestError a read fails with (the test fails if it does not). */
async function failure(data: Uint8Array | string, options?: XmltvReadOptions) {
  const error = await read(data, 1 << 16, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestError);
  return error as IngestError;
}

const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n${body}\n</tv>\n`;

describe('readXmltv: what it takes from a guide', () => {
  it('reads channels and programmes with their lines, skipping unknown elements', async () => {
    const { channels, programmes, result } = await read(fixture('basic.xml'));
    expect(result).toEqual({
      encoding: 'utf-8',
      lines: 38,
      channelElements: 2,
      programmeElements: 3,
    });
    expect(channels).toEqual([
      {
        xmltvId: 'rte1.ie',
        displayNames: [
          { value: 'RTÉ a hAon', lang: 'ga' },
          { value: 'RTÉ One', lang: 'en' },
        ],
        iconSrc: 'https://img.example/rte1.png',
        line: 6,
      },
      { xmltvId: 'tg4.ie', displayNames: [{ value: 'TG4', lang: '' }], iconSrc: null, line: 13 },
    ]);
    expect(programmes[0]).toEqual({
      elements: expect.any(Array),
      channel: 'rte1.ie',
      start: '20260822190000 +0100',
      stop: '20260822200000 +0100',
      title: 'Six One & More',
      desc: 'News at six, café culture été and <b>markup</b> as text.',
      categories: ['News', 'Current affairs'],
      line: 16,
    });
    expect(programmes[0]?.elements.map((e) => e.name)).toEqual([
      'title',
      'title',
      'sub-title',
      'desc',
      'desc',
      'credits',
      'category',
      'category',
      'episode-num',
      'rating',
    ]);
    // CDATA is text; surrounding whitespace is trimmed, inner line breaks kept.
    expect(programmes[1]).toMatchObject({
      title: 'Fair City <live>',
      desc: 'Dublin soap,\n      two lines.',
      categories: [],
      line: 28,
    });
    expect(programmes[2]).toMatchObject({
      start: '202608222030 +0100',
      stop: '2026082221 +0100',
      desc: null,
      line: 35,
    });
  });

  it('gives the same events whatever the chunk size (characters split across chunks)', async () => {
    const whole = await read(fixture('basic.xml'));
    for (const size of [1, 2, 3, 7, 64]) {
      expect(await read(fixture('basic.xml'), size), `chunk ${size}`).toEqual(whole);
    }
    const bom = await read(fixture('bom-no-declaration.xml'));
    expect(await read(fixture('bom-no-declaration.xml'), 1)).toEqual(bom);
  });

  it('reads a file with a UTF-8 byte order mark and no XML declaration', async () => {
    const { channels, programmes, result } = await read(fixture('bom-no-declaration.xml'));
    expect(result.encoding).toBe('utf-8');
    expect(channels[0]?.displayNames.map((n) => n.value)).toEqual(['BOM Channel – UTF-8']);
    expect(programmes[0]?.title).toBe('Café 📺');
  });

  it('decodes the declared encoding (ISO-8859-1)', async () => {
    const { channels, programmes, result } = await read(fixture('latin1.xml'), 5);
    expect(result.encoding).toBe('windows-1252'); // what WHATWG maps ISO-8859-1 to
    expect(channels[0]?.displayNames.map((n) => n.value)).toEqual(['Télé Lumière']);
    expect(programmes[0]).toMatchObject({ title: 'Café crème £½', desc: 'Entity é and byte é' });
  });

  it('decodes UTF-16 with a byte order mark', async () => {
    const text = doc(
      '<channel id="u16.jp"><display-name>日本テレビ</display-name></channel>',
    ).replace('UTF-8', 'UTF-16');
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { channels, result } = await read(bytes, 3);
    expect(result.encoding).toBe('utf-16le');
    expect(channels[0]?.displayNames.map((n) => n.value)).toEqual(['日本テレビ']);
  });

  it('expands predefined, numeric and internal-subset entities', async () => {
    const { channels, programmes } = await read(fixture('entities-dtd.xml'));
    expect(channels[0]?.displayNames.map((n) => n.value)).toEqual(['Télé\u00a0Onair & Co']);
    expect(programmes[0]?.title).toBe('Onair & Co presents');
    const numeric = await read(
      doc('<channel id="x"><display-name>&#x1F4FA;&#65;&quot;&apos;</display-name></channel>'),
    );
    expect(numeric.channels[0]?.displayNames.map((n) => n.value)).toEqual(['📺A"\'']);
  });

  it('takes only direct children of a programme as its title, desc and categories', async () => {
    const { programmes } = await read(
      doc(`<programme start="20260101000000 +0000" channel="a">
  <review><title>Not the title</title></review>
  <title>Real</title>
  <rating><value>PG</value></rating>
  <desc/>
</programme>`),
    );
    expect(programmes[0]).toMatchObject({ title: 'Real', desc: '', stop: null, categories: [] });
  });

  it('keeps every element of a programme whole: attributes in order, own text, children', async () => {
    const { programmes } = await read(
      doc(`<programme start="20260101000000 +0000" channel="a">
  <title lang="en">A &amp; B</title>
  <credits><actor role="Hero" guest="yes">Ann <![CDATA[Lee]]><image type="person">u</image> !</actor></credits>
  <new/>
</programme>
<programme start="20260101010000 +0000" channel="a"><title>Next</title></programme>`),
    );
    expect(programmes[0]?.elements).toEqual([
      { name: 'title', attributes: [['lang', 'en']], text: 'A & B', children: [] },
      {
        name: 'credits',
        attributes: [],
        text: '',
        children: [
          {
            name: 'actor',
            attributes: [
              ['role', 'Hero'],
              ['guest', 'yes'],
            ],
            text: 'Ann Lee !',
            children: [
              { name: 'image', attributes: [['type', 'person']], text: 'u', children: [] },
            ],
          },
        ],
      },
      { name: 'new', attributes: [], text: '', children: [] },
    ]);
    expect(programmes[1]?.elements).toEqual([
      { name: 'title', attributes: [], text: 'Next', children: [] },
    ]);
  });

  it('keeps the elements the same whatever the chunk size', async () => {
    const bytes = fixture('rich.xml');
    const whole = (await read(bytes)).programmes;
    for (const size of [1, 7, 64]) {
      expect((await read(bytes, size)).programmes).toEqual(whole);
    }
  });
});

describe('readXmltv: refusals name the problem and the line', () => {
  it('malformed XML', async () => {
    const error = await failure(
      doc(`<channel id="a"><display-name>A</display-name></channel>
<programme start="20260101000000 +0000" channel="a">
  <title>Broken</titel>
</programme>`),
    );
    expect(error.line).toBe(5);
    expect(error.message).toBe(
      'line 5: malformed XML: unexpected close tag </titel>: <title> is open',
    );
  });

  it('a bare "&", however it ends, and a control character, named', async () => {
    const bare = (title: string) =>
      failure(doc(`<channel id="a"><display-name>A</display-name></channel>\n${title}`));
    const told =
      'malformed XML: an "&" that starts no reference (write "&amp;" for the character &)';
    // Followed by a space (the name stops), by no ";" at all, and in an attribute.
    expect(
      (await bare('<programme channel="a" start="x"><title>Tom & Jerry</title></programme>'))
        .message,
    ).toBe(`line 4: ${told}`);
    expect(
      (await bare('<programme channel="a" start="x"><title>Tom &Jerry</title></programme>'))
        .message,
    ).toBe(`line 4: ${told}`);
    expect(
      (await bare('<programme channel="a&b" start="x"><title>T</title></programme>')).message,
    ).toBe(`line 4: ${told}`);
    expect(
      (await bare('<programme channel="a" start="x"><title>T\u000bx</title></programme>')).message,
    ).toBe('line 4: malformed XML: disallowed character U+000B');
    // The same character as a reference, and a reference that is none.
    expect(
      (await bare('<programme channel="a" start="x"><title>A&#11;B</title></programme>')).message,
    ).toBe('line 4: malformed XML: &#11; is a reference to U+000B, a character XML does not allow');
    expect(
      (await bare('<programme channel="a" start="x"><title>A&#xZZ;B</title></programme>')).message,
    ).toBe(
      'line 4: malformed XML: malformed character reference &#xZZ; (write &#NNNN; or &#xHHHH;)',
    );
  });

  it('a truncated file, inside a programme or inside a start tag', async () => {
    const text = doc(`<programme start="20260101000000 +0000" channel="a">
  <title>Cut`);
    const cut = await failure(text.slice(0, text.indexOf('Cut') + 3));
    expect(cut.message).toBe('line 4: unexpected end of file inside <programme>');
    const inTag = await failure('<tv>\n<channel id="a"/>\n<programme start="2026');
    expect(inTag.message).toBe('line 3: unexpected end of file inside <programme>');
    const afterProgramme = await failure('<tv>\n<channel id="a"/>\n');
    expect(afterProgramme.message).toBe('line 3: unexpected end of file inside <tv>');
  });

  it('invalid UTF-8, at the line of the bad byte, in any chunking', async () => {
    const good = Buffer.from(
      doc('<channel id="a"><display-name>Okay é</display-name></channel>\n<!-- x -->'),
    );
    const at = good.indexOf('x -->');
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xc3, 0x28]), good.subarray(at)]);
    for (const size of [1 << 16, 1, 2]) {
      const error = await read(bad, size).then(
        () => null,
        (e: unknown) => e as IngestError,
      );
      expect(error?.message, `chunk ${size}`).toBe(
        'line 4: invalid UTF-8 byte sequence (0xc3 0x28)',
      );
    }
    const overlong = await failure(
      Buffer.concat([
        Buffer.from('<tv>\n<!-- '),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from(' -->\n</tv>'),
      ]),
    );
    expect(overlong.line).toBe(2);
    const cutChar = await failure(
      Buffer.concat([Buffer.from('<tv>\n</tv>\n'), Buffer.from([0xe2, 0x80])]),
    );
    expect(cutChar.message).toMatch(/^line 3: invalid UTF-8: the input ends inside a character/);
  });

  it('an unknown declared encoding', async () => {
    const error = await failure('<?xml version="1.0" encoding="klingon-8"?>\n<tv></tv>');
    expect(error.message).toBe(
      'line 1: the XML declaration names encoding "klingon-8", which is not supported',
    );
  });

  it('an empty input, a non-XML input and a document that is not XMLTV', async () => {
    expect((await failure('')).message).toBe(
      'line 1: no <tv> element: the input is empty or not XML',
    );
    expect((await failure('hello')).message).toMatch(/^line 1: malformed XML/);
    expect((await failure('<?xml version="1.0"?>\n<rss><channel/></rss>')).message).toBe(
      'line 2: the root element is <rss>, not <tv>: this is not an XMLTV document',
    );
    expect((await failure('<tv></tv>\n<tv></tv>')).message).toMatch(/^line 2: malformed XML/);
  });

  it('undefined entities, also names that exist on Object.prototype', async () => {
    const undefinedEntity = await failure(
      doc('<channel id="a">\n<display-name>&nbsp;</display-name></channel>'),
    );
    expect(undefinedEntity.message).toBe(
      'line 4: malformed XML: undefined entity &nbsp; (XML knows only &amp; &lt; &gt; &quot; &apos; and those the DOCTYPE declares: write the character itself, or as &#NNNN;)',
    );
    const proto = await failure(
      doc('<channel id="a"><display-name>&constructor;</display-name></channel>'),
    );
    expect(proto.message).toMatch(/^line 3: malformed XML: undefined entity &constructor; /);
  });

  it('entity declarations that could blow up or reach outside the file', async () => {
    const dtd = (decl: string) => `<?xml version="1.0"?>\n<!DOCTYPE tv [\n${decl}\n]>\n<tv></tv>`;
    const cases: [string, RegExp][] = [
      ['<!ENTITY a "x">\n<!ENTITY b "&a;&a;">', /^line 4: entity "b" refers to entity "a"; nested/],
      ['<!ENTITY % p "x">', /parameter entities are not supported/],
      ['<!ENTITY x SYSTEM "file:///etc/passwd">', /entity "x" is external \(SYSTEM\)/],
      ['<!ENTITY x PUBLIC "-//X//Y" "http://example.com/x">', /is external \(PUBLIC\)/],
      ['<!ENTITY x "<b>bold</b>">', /entity "x" contains markup/],
      ['%p;', /parameter entity reference/],
    ];
    for (const [decl, pattern] of cases) {
      expect((await failure(dtd(decl))).message, decl).toMatch(pattern);
    }
  });

  it('entity expansion beyond the per-document budget', async () => {
    const value = 'x'.repeat(100);
    const text = `<!DOCTYPE tv [<!ENTITY big "${value}">]>\n<tv>\n<channel id="a"><display-name>${'&big;'.repeat(50)}</display-name></channel>\n</tv>`;
    const ok = await read(text, 1 << 16, { maxEntityExpansionChars: 5000 });
    expect(ok.channels[0]?.displayNames[0]?.value).toHaveLength(5000);
    const error = await failure(text, { maxEntityExpansionChars: 4999 });
    expect(error.message).toBe('line 3: entity references expand to more text than allowed');
  });

  it('elements nested deeper than the limit, at the line of the tag too deep', async () => {
    const nested = (levels: number) =>
      `<tv>\n<programme channel="a" start="20260101000000 +0000">\n${'<x>'.repeat(levels - 2)}\n<y/>${'</x>'.repeat(levels - 2)}</programme>\n</tv>\n`;
    // tv, programme and the <x>s make `levels` open elements; <y/> is one more.
    const ok = await read(nested(MAX_ELEMENT_DEPTH - 1));
    expect(ok.programmes).toHaveLength(1);
    const error = await failure(nested(MAX_ELEMENT_DEPTH));
    expect(error.message).toBe(
      `line 4: elements are nested more than ${MAX_ELEMENT_DEPTH} levels deep; the input is refused`,
    );
  });

  it('a text, attribute or comment longer than the limit, fed in chunks, without holding it', async () => {
    // Checked between input chunks (64 KiB here): a run is refused once a chunk ends past the limit.
    const big = 'x'.repeat(MAX_TOKEN_CHARS + (1 << 17));
    for (const text of [
      doc(`<programme channel="a" start="20260101000000 +0000"><desc>${big}</desc></programme>`),
      doc(`<channel id="a" note="${big}"/>`),
      doc(`<!--${big}-->`),
    ]) {
      const error = await failure(text);
      expect(error.message).toMatch(
        /^line 3: more than 8 Mi characters of text, attribute, comment or DOCTYPE without markup/,
      );
    }
    // Just under the limit is read, and many short texts add up to any size.
    const fits = 'y'.repeat(MAX_TOKEN_CHARS - 100);
    const ok = await read(
      doc(`<programme channel="a" start="20260101000000 +0000"><desc>${fits}</desc></programme>`),
    );
    expect(ok.programmes[0]?.desc).toHaveLength(fits.length);
    const many = Array.from(
      { length: 3 },
      () => `<!-- ${'c'.repeat(MAX_TOKEN_CHARS / 2)} -->`,
    ).join('\n');
    expect((await read(doc(many))).result.lines).toBe(6);
  });

  it('a programme with more elements, or more text, than one programme may hold', async () => {
    const programme = (body: string) =>
      doc(`<programme channel="a" start="20260101000000 +0000">\n${body}\n</programme>`);
    const many = (n: number) => '<keyword>k</keyword>'.repeat(n);
    expect((await read(programme(many(MAX_PROGRAMME_ELEMENTS)))).programmes).toHaveLength(1);
    expect((await failure(programme(many(MAX_PROGRAMME_ELEMENTS + 1)))).message).toBe(
      `line 3: a <programme> holds more than ${MAX_PROGRAMME_ELEMENTS} elements; the input is refused`,
    );
    // The count starts again with every programme.
    const twice = doc(
      `<programme channel="a" start="20260101000000 +0000">${many(MAX_PROGRAMME_ELEMENTS)}</programme>`.repeat(
        2,
      ),
    );
    expect((await read(twice)).programmes).toHaveLength(2);
    // Texts each under the token limit that together pass the programme's.
    const half = 'd'.repeat(MAX_PROGRAMME_CHARS / 2);
    const error = await failure(programme(`<desc>${half}</desc>\n<desc>${half}</desc>`));
    expect(error.message).toMatch(/^line 3: a <programme> holds more than 16 Mi characters/);
  });

  it('an error of the byte stream itself, placed at the line reached', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('<tv>\n<channel id="a">\n');
      throw new Error('connection reset');
    }
    const error = await readXmltv(broken(), { channel() {}, programme() {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IngestError);
    expect((error as IngestError).message).toBe('line 3: connection reset');
  });

  it('lets errors of the visitor through unchanged', async () => {
    const boom = new Error('storage is full');
    const error = await readXmltv(chunked(fixture('basic.xml'), 100), {
      channel() {
        throw boom;
      },
      programme() {},
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBe(boom);
  });
});
