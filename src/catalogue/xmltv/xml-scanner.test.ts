import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { PREDEFINED_ENTITIES, parseEntityDeclarations } from './doctype-entities.js';
import {
  XmlLimitError,
  XmlScanner,
  XmlSyntaxError,
  isXmlName,
  type XmlHandler,
} from './xml-scanner.js';

/** What a parser made of a document: its events, or the line of its first error. */
type Outcome = { ok: true; events: string[] } | { ok: false; line: number; message: string };

/** Events as one string each; text inside the root is merged between markup. */
class Recorder {
  events: string[] = [];
  private text = '';
  private depth = 0;

  start(name: string, attributes: [string, string][]): void {
    this.flush();
    const attrs = attributes.map(([k, v]) => ` ${k}=${JSON.stringify(v)}`).join('');
    this.events.push(`<${name}${attrs}>`);
    this.depth++;
  }

  end(name: string): void {
    this.flush();
    this.events.push(`</${name}>`);
    this.depth--;
  }

  chars(text: string): void {
    if (this.depth > 0) this.text += text;
  }

  flush(): void {
    if (this.text !== '') this.events.push(JSON.stringify(this.text));
    this.text = '';
  }
}

function withSaxes(doc: string): Outcome {
  const recorder = new Recorder();
  const parser = new SaxesParser({ xmlns: false, position: true });
  parser.ENTITIES = Object.assign(
    Object.create(null) as Record<string, string>,
    PREDEFINED_ENTITIES,
  );
  parser.on('doctype', (text) => {
    // A refused declaration is a refusal at the DOCTYPE's end, for both parsers.
    let entities: Map<string, string>;
    try {
      entities = parseEntityDeclarations(text);
    } catch (error) {
      throw new Error(`${parser.line}:0: ${(error as Error).message}`);
    }
    for (const [name, value] of entities) parser.ENTITIES[name] = value;
  });
  parser.on('opentag', (tag) => recorder.start(tag.name, Object.entries(tag.attributes)));
  parser.on('closetag', (tag) => recorder.end(tag.name));
  parser.on('text', (text) => recorder.chars(text));
  parser.on('cdata', (text) => recorder.chars(text));
  try {
    parser.write(doc).close();
  } catch (error) {
    const m = /^(\d+):\d+: (.*)$/s.exec((error as Error).message);
    if (m === null) throw error;
    return { ok: false, line: Number(m[1]), message: m[2] ?? '' };
  }
  recorder.flush();
  return { ok: true, events: recorder.events };
}

function withScanner(doc: string, chunkSize: number): Outcome {
  const recorder = new Recorder();
  let entities = new Map<string, string>();
  const handler: XmlHandler = {
    wantsText: true,
    startTag: (name, attributes) => recorder.start(name, attributes.entries()),
    endTag: (name) => recorder.end(name),
    text: (piece) => recorder.chars(piece),
    doctype: (text, endLine) => {
      try {
        entities = parseEntityDeclarations(text);
      } catch (error) {
        throw new XmlSyntaxError((error as Error).message, endLine);
      }
    },
  };
  const scanner = new XmlScanner(handler, (name) => entities.get(name), 1 << 24);
  try {
    for (let at = 0; at < doc.length; at += chunkSize) scanner.push(doc.slice(at, at + chunkSize));
    scanner.end();
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    return { ok: false, line: error.line, message: error.message };
  }
  recorder.flush();
  return { ok: true, events: recorder.events };
}

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/xmltv');

/** Well-formed documents that use every construct the scanner knows. */
const SEEDS: string[] = [
  readFileSync(join(FIXTURES, 'basic.xml'), 'utf8'),
  readFileSync(join(FIXTURES, 'entities-dtd.xml'), 'utf8'),
  readFileSync(join(FIXTURES, 'messy.xml'), 'utf8'),
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<!-- c1 --><?pi body?>\r\n<tv a='1' b = "x&amp;y&#10;z\tw">\r\n` +
    `<channel id="é.fr"><display-name>A<![CDATA[ <b>]] ]]]>&lt;&#x1F4FA;</display-name><icon src="i"/></channel>` +
    `<programme start="20260101000000 +0000" channel="é.fr"><title>T</title><desc>D\r1\r\n2</desc></programme>` +
    `\n</tv>\n<!-- end --><?done?>\n`,
  `<tv><a><b/><c x="1" y='2'/><d>text ] ]> &gt; &quot;&apos;</d></a><日本 名前="値">テキスト</日本></tv>`,
];

/** Characters that tend to break XML when put in the wrong place. */
const NOISE = [
  '<',
  '>',
  '&',
  ';',
  '"',
  "'",
  '/',
  '!',
  '?',
  '-',
  '--',
  ']]>',
  ']',
  '[',
  ' ',
  '\n',
  '\r',
  '=',
  'a',
  '#',
  '&#',
  'x',
  '\u0001',
  '\uFFFE',
  'é',
  '\t',
  '<!--',
  '<![CDATA[',
  '<?',
  '?>',
  '</tv>',
  '<tv>',
  '&amp;',
  '&nope;',
  '&#0;',
  '&#x41;',
  '1',
  ':',
  '.',
];

/** A small deterministic PRNG (mulberry32), so every run tests the same mutants. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(doc: string, next: () => number): string {
  const at = Math.floor(next() * (doc.length + 1));
  const noise = NOISE[Math.floor(next() * NOISE.length)] as string;
  switch (Math.floor(next() * 4)) {
    case 0:
      return doc.slice(0, at) + noise + doc.slice(at);
    case 1:
      return doc.slice(0, at) + doc.slice(at + 1 + Math.floor(next() * 3));
    case 2:
      return doc.slice(0, at) + noise + doc.slice(at + 1);
    default: {
      const to = Math.min(doc.length, at + Math.floor(next() * 40));
      return doc.slice(0, at) + doc.slice(to) + doc.slice(at, to);
    }
  }
}

describe('XmlScanner against saxes', () => {
  it('reads the well-formed seeds as saxes does, in any chunking', () => {
    for (const seed of SEEDS) {
      const expected = withSaxes(seed);
      expect(expected.ok).toBe(true);
      for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
        expect(withScanner(seed, size), `chunk ${size}`).toEqual(expected);
      }
    }
  });

  it('accepts and refuses the same mutants as saxes, with the same events', () => {
    const next = random(20261123);
    let refused = 0;
    let sameLine = 0;
    const total = 6000;
    for (let n = 0; n < total; n++) {
      const seed = SEEDS[n % SEEDS.length] as string;
      let doc = mutate(seed, next);
      if (next() < 0.3) doc = mutate(doc, next);
      const expected = withSaxes(doc);
      const actual = withScanner(doc, 1 + Math.floor(next() * 300));
      const label = JSON.stringify(doc);
      expect(actual.ok, label).toBe(expected.ok);
      if (expected.ok) {
        expect(actual, label).toEqual(expected);
      } else if (!actual.ok) {
        refused++;
        if (actual.line === expected.line) sameLine++;
      }
    }
    // Mutations break most documents, and nearly every refusal names the line saxes names.
    // Where they differ, the scanner names the line of the character at fault, saxes the line
    // where it noticed: after the line end that follows a bad tag name, at the end of a run of
    // text outside the root, or at the ';' (or the end of the input) after a bad '&'.
    expect(refused).toBeGreaterThan(total / 2);
    expect(sameLine / refused).toBeGreaterThan(0.95);
  });
});

describe('XmlScanner', () => {
  const scan = (doc: string) => withScanner(doc, 1 << 20);
  /** A handler that wants nothing: for the limits, which do not depend on it. */
  const handler: XmlHandler = {
    wantsText: false,
    startTag() {},
    endTag() {},
    text() {},
    doctype() {},
  };

  it('normalises line ends and attribute white space, and counts lines as saxes does', () => {
    expect(scan('<tv a="x\ty\r\nz">1\r2\r\n3</tv>')).toEqual({
      ok: true,
      events: ['<tv a="x y z">', '"1\\n2\\n3"', '</tv>'],
    });
    expect(scan('<tv>\r\n\r\n</tv>\r\n<bad/>')).toMatchObject({ ok: false, line: 4 });
  });

  it('reads a document whose version is 1.x as XML 1.0', () => {
    expect(scan('<?xml version="1.1"?><tv/>').ok).toBe(true);
    expect(scan('<?xml version="2.0"?><tv/>')).toMatchObject({
      ok: false,
      message: 'version number must match /^1\\.[0-9]+$/',
    });
  });

  it('refuses a piece of markup that never ends, without keeping it all', () => {
    for (const opening of ['<!-- ', '<programme title="', '<![CDATA[', '<?pi ']) {
      const scanner = new XmlScanner(handler, () => undefined, 1 << 24, 1000);
      scanner.push(`<tv>\n${opening}`);
      const error = (() => {
        try {
          for (let i = 0; i < 20; i++) scanner.push('x'.repeat(100));
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error, opening).toBeInstanceOf(XmlLimitError);
      expect(error).toMatchObject({ line: 2, limit: 1000 });
    }
    // A run of text between two tags is bounded the same way, however it is chunked.
    const scanner = new XmlScanner(handler, () => undefined, 1 << 24, 1000);
    scanner.push('<tv>\n<a>');
    for (let i = 0; i < 9; i++) scanner.push('y'.repeat(100));
    scanner.push('</a><b>');
    expect(() => {
      for (let i = 0; i < 11; i++) scanner.push('z'.repeat(100));
    }).toThrow(XmlLimitError);
  });

  it('reads long pieces of markup held back chunk by chunk as saxes does, lines and errors too', () => {
    // Over 64 Ki characters, so later chunks are held back until a '>' may end the piece.
    const long = (unit: string) => unit.repeat(Math.ceil(70_000 / unit.length));
    const docs = [
      `<tv>\n<a title="${long('ab\ncd ')}">x</a>\n</tv>`,
      `<tv>\n<!-- ${long('note\n')} -->\n<b/></tv>`,
      `<tv><![CDATA[${long('c]\n')}]]>\n</tv>`,
      `<!DOCTYPE tv [\n<!-- ${long('d\n')} -->\n<!ENTITY e "v">]>\n<tv>&e;</tv>`,
      `<tv>\n<?pi ${long('p\n')}?>\n</tv>`,
      // Broken inside and after the long piece: the same error, on the same line.
      `<tv>\n<a title="${long('x\n')}\u0001">x</a></tv>`,
      `<tv>\n<!-- ${long('y\n')} -- -->\n</tv>`,
      `<tv>\n<a t="${long('z\n')}"\n`,
      `<tv>\n<a t="${long('w\n')}"></b>\n</tv>`,
    ];
    for (const doc of docs) {
      const reference = withSaxes(doc);
      for (const chunkSize of [1000, 4093, 65_536, 1 << 20]) {
        const outcome = withScanner(doc, chunkSize);
        expect(outcome.ok, `${doc.slice(0, 30)} in chunks of ${chunkSize}`).toBe(reference.ok);
        if (outcome.ok && reference.ok) expect(outcome.events).toEqual(reference.events);
        if (!outcome.ok && !reference.ok) expect(outcome.line).toBe(reference.line);
      }
    }
    // The markup limit still holds while chunks are held back.
    // Once the piece has ended, what follows is read as it comes, not held back.
    const ended = new XmlScanner(handler, () => undefined, 1 << 24, 100_000);
    ended.push(`<tv>\n<a t="${'u'.repeat(70_000)}`);
    ended.push('">');
    for (let i = 0; i < 100; i++) ended.push('<b>text</b>'.repeat(200));
    ended.push('</a></tv>');
    ended.end();
    const scanner = new XmlScanner(handler, () => undefined, 1 << 24, 100_000);
    scanner.push('<tv>\n\n<a t="');
    expect(() => {
      for (let i = 0; i < 200; i++) scanner.push('v\n'.repeat(500));
    }).toThrow(expect.objectContaining({ line: 3, limit: 100_000 }));
  });

  it('tells XML names', () => {
    expect(['tv', 'display-name', 'a:b', '_x.1', 'é', '日本'].every(isXmlName)).toBe(true);
    expect(['', '1a', '-a', 'a b', 'a<'].some(isXmlName)).toBe(false);
  });
});
