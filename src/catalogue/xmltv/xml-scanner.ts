/**
 * A strict, streaming, non-validating XML 1.0 parser for XMLTV guides.
 *
 * Hand-written rather than built on saxes (the reference parser, still used by the differential
 * test and the ingest benchmark) because parsing was the largest single cost of an ingest:
 * saxes reads every character through a general state machine, while this scanner jumps from
 * one character that matters to the next with `indexOf` and checks the rest with a few regular
 * expressions (`npm run bench:ingest` prints both parsers' speed on the same file).
 * It makes the same well-formedness checks: every character must be an XML Char, names must be
 * XML names, tags must nest and match, attributes must be quoted, unique and free of `<`,
 * references must be declared (or be valid character references), `]]>` may not appear in
 * text, comments may not contain `--`, nothing but comments, processing instructions and white
 * space may surround the root element, and the XML declaration (only at the very start) must
 * be well formed. A document declaring version 1.x is read as XML 1.0, as the XML 1.0
 * specification tells a 1.0 processor to. src/catalogue/xmltv/xml-scanner.test.ts feeds this scanner
 * and saxes the same documents, well formed and broken, and expects the same verdicts.
 *
 * What it hands on: start tags (name, attributes, line of the `<`), end tags, the DOCTYPE text
 * (for its entity declarations) and, only while the handler asks for it, text (with CDATA
 * sections, line ends normalised to `\n`, references expanded).
 */

/** A well-formedness error, at the line where it was found. */
export class XmlSyntaxError extends Error {
  override name = 'XmlSyntaxError';

  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** Entity references expanded to more text than the scanner was allowed. */
export class XmlExpansionError extends Error {
  override name = 'XmlExpansionError';

  constructor(readonly line: number) {
    super('entity references expand to more text than allowed');
  }
}

/**
 * A run of character data, or one piece of markup (tag, comment, CDATA section, processing
 * instruction, DOCTYPE), longer than the scanner was allowed: held whole until it ends, it
 * would grow memory without bound.
 */
export class XmlLimitError extends Error {
  override name = 'XmlLimitError';

  constructor(
    readonly limit: number,
    readonly line: number,
  ) {
    super(`more than ${limit} characters without markup`);
  }
}

/** What the scanner reports, synchronously, as it reads. */
export interface XmlHandler {
  /** A start tag (also of an empty-element tag, which is followed by `endTag`). */
  startTag(name: string, attributes: XmlAttributes, line: number): void;
  endTag(name: string): void;
  /** Text (and CDATA) while `wantsText` is true, in pieces that the handler joins. */
  text(piece: string): void;
  /** The DOCTYPE declaration: its text between `<!DOCTYPE` and `>`, and the line it ends on. */
  doctype(text: string, endLine: number): void;
  /** Read before each run of character data: whether `text` should be called for it. */
  readonly wantsText: boolean;
}

/** The attributes of the start tag being reported; valid only during `startTag`. */
export interface XmlAttributes {
  /** The (normalised) value of the attribute, or undefined when the tag has none by that name. */
  get(name: string): string | undefined;
  /** Every attribute as [name, value], in document order. */
  entries(): [string, string][];
}

/** The replacement text of a declared entity (`&name;`); undefined when it is not declared. */
export type EntityResolver = (name: string) => string | undefined;

const enum Place {
  /** Before the root element (after an XML declaration, if any). */
  Prolog,
  /** Inside the root element. */
  Root,
  /** After the root element. */
  Epilog,
}

/** What an `&` that starts no reference is told: guides' most common XML mistake. */
const BARE_AMPERSAND = 'an "&" that starts no reference (write "&amp;" for the character &)';

/** A character as a message names it: `U+000B`. */
function codePointName(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Characters that are not XML 1.0 Chars (surrogates come only in pairs from the decoders). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it finds
const NOT_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
const NOT_SPACE = /[^ \t\n]/;
const ENCODING_NAME = /^[A-Za-z][A-Za-z0-9._-]*$/;
const VERSION = /^1\.[0-9]+$/;
const DECLARATION_END = /[?<>]/g;
/** Longest single piece of markup accepted (see the XmlScanner constructor). */
export const MAX_MARKUP_CHARS = 16 * 1024 * 1024;

/** Unfinished markup at least this long holds later chunks back (XmlScanner.holdBack). */
const HOLD_BACK_FROM = 64 * 1024;

// ASCII character classes: bit 1 name start, bit 2 name (after the first), bit 4 white space.
const NAME_START = 1;
const NAME_CHAR = 2;
const SPACE = 4;
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_:]/.test(ch)) ASCII[c] = NAME_START | NAME_CHAR;
  else if (/[0-9.-]/.test(ch)) ASCII[c] = NAME_CHAR;
  else if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') ASCII[c] = SPACE;
}

/** XML 1.0 (fifth edition) NameStartChar, for a code point of 0x80 or more. */
function isWideNameStart(c: number): boolean {
  return (
    (c >= 0xc0 && c <= 0xd6) ||
    (c >= 0xd8 && c <= 0xf6) ||
    (c >= 0xf8 && c <= 0x2ff) ||
    (c >= 0x370 && c <= 0x37d) ||
    (c >= 0x37f && c <= 0x1fff) ||
    (c >= 0x200c && c <= 0x200d) ||
    (c >= 0x2070 && c <= 0x218f) ||
    (c >= 0x2c00 && c <= 0x2fef) ||
    (c >= 0x3001 && c <= 0xd7ff) ||
    (c >= 0xf900 && c <= 0xfdcf) ||
    (c >= 0xfdf0 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0xeffff)
  );
}

/** XML 1.0 NameChar, for a code point of 0x80 or more. */
function isWideNameChar(c: number): boolean {
  return (
    c === 0xb7 || (c >= 0x300 && c <= 0x36f) || (c >= 0x203f && c <= 0x2040) || isWideNameStart(c)
  );
}

/** Index just after the XML name starting at `at` (== `at` when there is none). */
function nameEnd(text: string, at: number, end: number): number {
  let i = at;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if ((ASCII[c] as number) & (i === at ? NAME_START : NAME_CHAR)) {
        i++;
        continue;
      }
      return i;
    }
    const code = text.codePointAt(i) as number;
    if (!(i === at ? isWideNameStart(code) : isWideNameChar(code))) return i;
    i += code > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * True when `text` appears in `buf` at `at`. A loop of charCodeAt: String#startsWith with a
 * position was the costliest line of the scanner (measured).
 */
function sameAt(buf: string, at: number, text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    if (buf.charCodeAt(at + k) !== text.charCodeAt(k)) return false;
  }
  return true;
}

/** True when the whole of `text` is an XML name. */
export function isXmlName(text: string): boolean {
  return text.length > 0 && nameEnd(text, 0, text.length) === text.length;
}

function isCharCode(c: number): boolean {
  return (
    c === 0x9 ||
    c === 0xa ||
    c === 0xd ||
    (c >= 0x20 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

// A Map, so that names like "constructor" find nothing.
const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

/** Attributes of the current start tag, kept in reusable arrays. */
class AttributeList implements XmlAttributes {
  names: string[] = [];
  values: string[] = [];
  count = 0;

  get(name: string): string | undefined {
    for (let i = 0; i < this.count; i++) if (this.names[i] === name) return this.values[i];
    return undefined;
  }

  entries(): [string, string][] {
    const list: [string, string][] = [];
    for (let i = 0; i < this.count; i++) list.push([this.names[i] ?? '', this.values[i] ?? '']);
    return list;
  }

  /** Adds an attribute; false when the tag already has one by that name. */
  add(name: string, value: string): boolean {
    for (let i = 0; i < this.count; i++) if (this.names[i] === name) return false;
    this.names[this.count] = name;
    this.values[this.count] = value;
    this.count++;
    return true;
  }
}

/** Thrown inside the scanner when the buffer ends before the construct being read does. */
const INCOMPLETE = -1;

/**
 * The scanner. `push` decoded text as it comes (any chunking), then `end`. Errors are
 * XmlSyntaxError; errors thrown by the handler pass through.
 */
export class XmlScanner {
  /** Unread text: the end of the previous chunk (an unfinished construct) and the new one. */
  private buf = '';
  private pos = 0;
  /** Line of `buf[lineAt]`, and the next line end at or after `lineAt` (-1: none, -2: unknown). */
  private line = 1;
  private lineAt = 0;
  private nextNl = -2;
  /** Cached positions of the next `&` / `]]>` / `\n` at or after some index (-1: none). */
  private nextAmp = -2;
  private nextAmpFrom = 0;
  private nextCdEnd = -2;
  private nextCdEndFrom = 0;
  private place = Place.Prolog;
  private readonly open: string[] = [];
  private sawDoctype = false;
  /** True until anything but a byte order mark has been read: where an XML declaration may be. */
  private atStart = true;
  /** A `\r` that ended the previous chunk: with a `\n` starting the next, it is one line end. */
  private pendingCr = false;
  private readonly attributes = new AttributeList();
  /** Names read so far (a guide uses a few dozen): reused instead of sliced again. */
  private readonly names: string[] = [];
  /** Whether the buffer holds a tab (attribute values then need normalising). */
  private hasTab = false;
  /**
   * The first '<' at or after `ltHintFrom` (-1: none), found while reading a start tag: where
   * the text after that tag ends, so it is not searched for twice.
   */
  private ltHint = -1;
  private ltHintFrom = -1;
  /** Characters of character data read since the last piece of markup. */
  private textRun = 0;
  /**
   * Chunks held back while a long piece of markup is unfinished (see `holdBack`), and their
   * length: appended to `buf` at once when the piece may end, not chunk by chunk.
   */
  private heldBack: string[] = [];
  private heldBackChars = 0;

  /**
   * `resolveEntity` gives declared entities; the characters their references may add to the
   * document are limited to `maxExpansionChars` in all. A tag, comment, CDATA section,
   * processing instruction or DOCTYPE may not be longer than `maxMarkupChars`: it is kept
   * whole until its end comes, so this bounds memory (and the work of searching it again with
   * each chunk) when an input never closes one. A run of character data between two pieces of
   * markup may not be longer than that either (its handler may be joining it).
   */
  constructor(
    private readonly handler: XmlHandler,
    private readonly resolveEntity: EntityResolver,
    private maxExpansionChars: number,
    private readonly maxMarkupChars = MAX_MARKUP_CHARS,
  ) {}

  /** Reads more of the document. */
  push(chunk: string): void {
    let text = chunk;
    if (this.pendingCr) {
      text = `\r${text}`;
      this.pendingCr = false;
    }
    if (text.length > 0 && text.charCodeAt(text.length - 1) === 13) {
      this.pendingCr = true;
      text = text.slice(0, -1);
    }
    // XML line-end handling: CR LF and a lone CR are read as LF.
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    const bad = NOT_CHAR.exec(text);
    if (bad === null && this.holdBack(text)) return;
    this.releaseHeldBack();
    if (bad !== null) {
      // Everything before the character is read first, so an earlier error is reported first.
      this.append(text.slice(0, bad.index));
      this.scan(false);
      throw new XmlSyntaxError(`disallowed character ${codePointName(bad[0])}`, this.lineAtEnd());
    }
    this.append(text);
    this.scan(false);
    if (this.buf.length - this.pos > this.maxMarkupChars) {
      throw new XmlLimitError(this.maxMarkupChars, this.lineTo(this.pos));
    }
  }

  /** Reads what is left and checks that the document is complete. */
  end(): void {
    this.releaseHeldBack();
    if (this.pendingCr) {
      this.pendingCr = false;
      this.append('\n');
    }
    this.scan(true);
  }

  /** Line reached: 1 + the line ends read so far (also those of an unfinished construct). */
  lineAtEnd(): number {
    this.releaseHeldBack();
    let lines = this.line;
    let nl = this.nextNl === -2 ? this.buf.indexOf('\n', this.lineAt) : this.nextNl;
    while (nl >= 0) {
      lines++;
      nl = this.buf.indexOf('\n', nl + 1);
    }
    return lines;
  }

  /** Names of the open elements, outermost first. */
  openElements(): readonly string[] {
    return this.open;
  }

  /** Name of a start tag the input ended inside, if it did. */
  unfinishedTag(): string | null {
    this.releaseHeldBack();
    const rest = this.buf.slice(this.pos);
    if (rest.charCodeAt(0) !== 60) return null;
    const end = nameEnd(rest, 1, rest.length);
    return end > 1 ? rest.slice(1, end) : null;
  }

  /** Whether a root element has been read to its end. */
  get complete(): boolean {
    return this.place === Place.Epilog;
  }

  /**
   * Holds `text` back, unscanned, while the buffer holds a long unfinished piece of markup (a
   * tag, comment, CDATA section, processing instruction or DOCTYPE: every one ends with `>`)
   * and `text` has no `>`, so it cannot end there. Appending and scanning each chunk made V8
   * flatten the growing buffer once per chunk, a new copy each time: for a hostile attribute
   * streamed up to the limit, RSS grew by 45–160 MB (test/ingest/hostile-xmltv.property.test.ts),
   * 13 MB with the chunks held back. The markup limit is still checked chunk by chunk.
   */
  private holdBack(text: string): boolean {
    const unfinished = this.buf.length - this.pos;
    if (unfinished < HOLD_BACK_FROM || this.buf.charCodeAt(this.pos) !== 60) return false;
    if (text.includes('>')) return false;
    this.heldBack.push(text);
    this.heldBackChars += text.length;
    if (unfinished + this.heldBackChars > this.maxMarkupChars) {
      this.releaseHeldBack();
      throw new XmlLimitError(this.maxMarkupChars, this.lineTo(this.pos));
    }
    return true;
  }

  private releaseHeldBack(): void {
    if (this.heldBack.length === 0) return;
    const text = this.heldBack.join('');
    this.heldBack = [];
    this.heldBackChars = 0;
    this.append(text);
  }

  private append(text: string): void {
    if (this.pos > 0) {
      this.lineTo(this.pos);
      this.buf = this.buf.slice(this.pos);
      this.lineAt -= this.pos;
      if (this.nextNl >= 0) this.nextNl -= this.pos;
      this.nextAmpFrom = Math.max(0, this.nextAmpFrom - this.pos);
      this.nextCdEndFrom = Math.max(0, this.nextCdEndFrom - this.pos);
      this.pos = 0;
    }
    // (A tab in what is left of the previous chunk keeps the flag on; rarely matters.)
    this.hasTab = (this.hasTab && this.buf.length > 0) || text.includes('\t');
    this.buf = this.buf.length === 0 ? text : this.buf + text;
    this.ltHintFrom = -1;
    // Cached "none found" answers may change with more text.
    if (this.nextNl === -1) this.nextNl = -2;
    this.nextAmp = -2;
    this.nextCdEnd = -2;
  }

  /** Advances the line count to `at`. */
  private lineTo(at: number): number {
    const buf = this.buf;
    let nl = this.nextNl;
    if (nl === -2) {
      nl = buf.indexOf('\n', this.lineAt);
      this.nextNl = nl;
    }
    if (at <= this.lineAt) return this.line;
    while (nl >= 0 && nl < at) {
      this.line++;
      nl = buf.indexOf('\n', nl + 1);
    }
    this.nextNl = nl;
    this.lineAt = at;
    return this.line;
  }

  private fail(message: string, at: number): never {
    throw new XmlSyntaxError(message, this.lineTo(at));
  }

  private ampAfter(from: number): number {
    if (
      this.nextAmp === -2 ||
      from < this.nextAmpFrom ||
      (this.nextAmp >= 0 && from > this.nextAmp)
    ) {
      this.nextAmp = this.buf.indexOf('&', from);
      this.nextAmpFrom = from;
    }
    return this.nextAmp;
  }

  private cdEndAfter(from: number): number {
    if (
      this.nextCdEnd === -2 ||
      from < this.nextCdEndFrom ||
      (this.nextCdEnd >= 0 && from > this.nextCdEnd)
    ) {
      this.nextCdEnd = this.buf.indexOf(']]>', from);
      this.nextCdEndFrom = from;
    }
    return this.nextCdEnd;
  }

  /** Reads every complete construct in the buffer; at the end of input, all of it. */
  private scan(atEnd: boolean): void {
    const buf = this.buf;
    const len = buf.length;
    let pos = this.pos;
    try {
      while (pos < len) {
        const hint = this.ltHint;
        const lt =
          this.ltHintFrom >= 0 && pos >= this.ltHintFrom && (hint < 0 || hint >= pos)
            ? hint
            : buf.indexOf('<', pos);
        if (lt !== pos) {
          const textEnd = lt < 0 ? len : lt;
          const done = this.characterData(pos, textEnd, lt < 0 && !atEnd);
          this.textRun += done - pos;
          pos = done;
          if (this.textRun > this.maxMarkupChars) {
            throw new XmlLimitError(this.maxMarkupChars, this.lineTo(pos));
          }
          if (lt < 0) break;
        }
        // buf[pos] is '<'.
        const next = this.markup(pos, atEnd);
        if (next === INCOMPLETE) break;
        this.textRun = 0;
        pos = next;
      }
    } finally {
      this.pos = pos;
    }
    if (atEnd) this.finish();
  }

  private finish(): void {
    const line = this.lineAtEnd();
    if (this.pos < this.buf.length) {
      throw new XmlSyntaxError('unexpected end', line);
    }
    if (this.open.length > 0) throw new XmlSyntaxError(`unclosed tag: ${this.open.at(-1)}`, line);
    if (this.place === Place.Prolog) {
      throw new XmlSyntaxError('document must contain a root element', line);
    }
  }

  /**
   * Character data in [from, to). When `more` is true the data may go on in the next chunk:
   * a final reference or `]]` is left for then. Returns where reading stopped.
   */
  private characterData(from: number, to: number, more: boolean): number {
    const buf = this.buf;
    let end = to;
    if (more) {
      // Leave an unfinished reference, or "]" / "]]" that may begin "]]>", to the next chunk.
      const amp = buf.lastIndexOf('&', end - 1);
      if (amp >= from && buf.indexOf(';', amp) < 0) end = amp;
      while (end > from && buf.charCodeAt(end - 1) === 93 && to - end < 2) end--;
    }
    if (end === from) return from;
    this.atStart = false;
    if (this.place !== Place.Root) {
      const other = NOT_SPACE.exec(buf.slice(from, end));
      if (other !== null) this.fail('text data outside of root node', from + other.index);
      return end;
    }
    const cdEnd = this.cdEndAfter(from);
    if (cdEnd >= 0 && cdEnd + 3 <= end) {
      this.fail('the string "]]>" is disallowed in char data', cdEnd + 2);
    }
    const wants = this.handler.wantsText;
    let at = from;
    for (;;) {
      const amp = this.ampAfter(at);
      if (amp < 0 || amp >= end) {
        if (wants && end > at) this.handler.text(buf.slice(at, end));
        return end;
      }
      if (wants && amp > at) this.handler.text(buf.slice(at, amp));
      const semi = buf.indexOf(';', amp);
      const value = this.reference(amp, semi);
      if (wants) this.handler.text(value);
      at = semi + 1;
    }
  }

  /** The replacement text of the reference at `amp` ending at `semi` (its `;`). */
  private reference(amp: number, semi: number): string {
    const buf = this.buf;
    if (semi < 0) this.fail(BARE_AMPERSAND, amp);
    if (buf.charCodeAt(amp + 1) === 35) {
      // &#...; or &#x...;
      const body = buf.slice(amp + 2, semi);
      let code = Number.NaN;
      if (/^x[0-9a-fA-F]+$/.test(body)) code = parseInt(body.slice(1), 16);
      else if (/^[0-9]+$/.test(body)) code = parseInt(body, 10);
      if (!isCharCode(code)) {
        const shown = body.length > 12 ? `${body.slice(0, 12)}…` : body;
        this.fail(
          Number.isFinite(code) && code <= 0x10ffff
            ? `&#${shown}; is a reference to ${codePointName(String.fromCodePoint(code))}, a character XML does not allow`
            : `malformed character reference &#${shown}; (write &#NNNN; or &#xHHHH;)`,
          semi,
        );
      }
      return String.fromCodePoint(code);
    }
    const name = buf.slice(amp + 1, semi);
    const predefined = PREDEFINED.get(name);
    if (predefined !== undefined) return predefined;
    if (nameEnd(buf, amp + 1, semi) !== semi || semi === amp + 1) {
      // "Tom & Jerry": the name runs into a space or markup long before any ';'.
      this.fail(semi === amp + 1 ? 'empty entity name' : BARE_AMPERSAND, amp);
    }
    const value = this.resolveEntity(name);
    if (value === undefined) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      this.fail(
        `undefined entity &${shown}; (XML knows only &amp; &lt; &gt; &quot; &apos; and those the DOCTYPE declares: write the character itself, or as &#NNNN;)`,
        semi,
      );
    }
    this.maxExpansionChars -= value.length;
    if (this.maxExpansionChars < 0) throw new XmlExpansionError(this.lineTo(semi));
    return value;
  }

  /** The markup starting at `lt` (a `<`); returns the index after it, or INCOMPLETE. */
  private markup(lt: number, atEnd: boolean): number {
    const buf = this.buf;
    const len = buf.length;
    if (lt + 1 >= len) return atEnd ? this.fail('unexpected end', len) : INCOMPLETE;
    const c = buf.charCodeAt(lt + 1);
    if (c === 47) return this.endTag(lt);
    if (c === 63) return this.processingInstruction(lt);
    this.atStart = false;
    if (c === 33) {
      if (buf.startsWith('<!--', lt)) return this.comment(lt);
      if (buf.startsWith('<![CDATA[', lt)) return this.cdata(lt);
      if (buf.startsWith('<!DOCTYPE', lt)) return this.doctype(lt);
      // Could still become one of the three once more text comes.
      const head = buf.slice(lt, lt + 9);
      const prefixOf = (s: string) => s.startsWith(head);
      if (len - lt < 9 && (prefixOf('<!--') || prefixOf('<![CDATA[') || prefixOf('<!DOCTYPE'))) {
        return atEnd ? this.fail('unexpected end', len) : INCOMPLETE;
      }
      return this.fail('incorrect syntax', lt + 2);
    }
    return this.startTag(lt);
  }

  private startTag(lt: number): number {
    const buf = this.buf;
    const len = buf.length;
    const nameStop = nameEnd(buf, lt + 1, len);
    if (nameStop === lt + 1) return this.fail('disallowed character in tag name', lt + 1);
    if (nameStop >= len) return INCOMPLETE;
    if (this.place === Place.Epilog) this.fail('documents may contain only one root', nameStop);
    const name = this.name(lt + 1, nameStop);
    const attributes = this.attributes;
    attributes.count = 0;
    // Also places `nextNl` at or after the tag, for attributeValue.
    this.lineTo(lt);
    // The next '<' after this one, once there is an attribute: its value may not reach it.
    let nextLt = -2;
    let i = nameStop;
    for (;;) {
      if (i >= len) return INCOMPLETE;
      let c = buf.charCodeAt(i);
      const spaceFrom = i;
      while (c < 128 && (ASCII[c] as number) & SPACE) {
        if (++i >= len) return INCOMPLETE;
        c = buf.charCodeAt(i);
      }
      if (c === 62) {
        i++;
        break;
      }
      if (c === 47) {
        if (i + 1 >= len) return INCOMPLETE;
        if (buf.charCodeAt(i + 1) !== 62)
          this.fail('forward-slash in opening tag not followed by >', i + 1);
        this.openElement(name, lt, true);
        return i + 2;
      }
      const attrStop = nameEnd(buf, i, len);
      if (attrStop === i) {
        this.fail(
          i === nameStop
            ? 'disallowed character in tag name'
            : 'disallowed character in attribute name',
          i,
        );
      }
      if (i === spaceFrom) {
        this.fail(
          i === nameStop ? 'disallowed character in tag name' : 'no whitespace between attributes',
          i,
        );
      }
      if (attrStop >= len) return INCOMPLETE;
      // Eq: S? '=' S?
      let j = attrStop;
      while (j < len && buf.charCodeAt(j) < 128 && (ASCII[buf.charCodeAt(j)] as number) & SPACE)
        j++;
      if (j >= len) return INCOMPLETE;
      if (buf.charCodeAt(j) !== 61) this.fail('attribute without value', j);
      j++;
      while (j < len && buf.charCodeAt(j) < 128 && (ASCII[buf.charCodeAt(j)] as number) & SPACE)
        j++;
      if (j >= len) return INCOMPLETE;
      const quote = buf.charCodeAt(j);
      if (quote !== 34 && quote !== 39) this.fail('unquoted attribute value', j);
      const close = buf.indexOf(quote === 34 ? '"' : "'", j + 1);
      if (nextLt === -2) {
        nextLt = buf.indexOf('<', lt + 1);
        this.ltHint = nextLt;
        this.ltHintFrom = lt + 1;
      }
      if (close < 0) {
        if (nextLt >= 0) this.fail('disallowed character', nextLt);
        return INCOMPLETE;
      }
      if (nextLt >= 0 && nextLt < close) this.fail('disallowed character', nextLt);
      const attrName = this.name(i, attrStop);
      if (!attributes.add(attrName, this.attributeValue(j + 1, close))) {
        this.fail(`duplicate attribute: ${attrName}`, close);
      }
      i = close + 1;
      if (i >= len) return INCOMPLETE;
      const after = buf.charCodeAt(i);
      if (after !== 62 && after !== 47 && !(after < 128 && (ASCII[after] as number) & SPACE)) {
        if (nameEnd(buf, i, i + 2) > i) this.fail('no whitespace between attributes', i);
        this.fail('disallowed character in attribute name', i);
      }
    }
    this.openElement(name, lt, false);
    return i;
  }

  /** The name in buf[from, to), the same string as the last time it was read. */
  private name(from: number, to: number): string {
    const names = this.names;
    const length = to - from;
    const buf = this.buf;
    for (let k = 0; k < names.length; k++) {
      const known = names[k] as string;
      if (known.length === length && sameAt(buf, from, known)) return known;
    }
    const name = buf.slice(from, to);
    if (names.length < 64) names.push(name);
    return name;
  }

  /** The value of an attribute in [from, to): references expanded, white space normalised. */
  private attributeValue(from: number, to: number): string {
    const buf = this.buf;
    const amp = this.ampAfter(from);
    let value: string;
    if (amp < 0 || amp >= to) {
      value = buf.slice(from, to);
      // Most values hold neither a tab nor a line end: nothing to normalise.
      if (!this.hasTab && !(this.nextNl >= 0 && this.nextNl < to)) return value;
    } else {
      value = '';
      let at = from;
      let ref = amp;
      while (ref >= 0 && ref < to) {
        const semi = buf.indexOf(';', ref);
        if (semi < 0 || semi >= to) this.fail(BARE_AMPERSAND, ref);
        value += normaliseSpace(buf.slice(at, ref)) + this.reference(ref, semi);
        at = semi + 1;
        ref = this.ampAfter(at);
      }
      return value + normaliseSpace(buf.slice(at, to));
    }
    return normaliseSpace(value);
  }

  private openElement(name: string, lt: number, empty: boolean): void {
    this.atStart = false;
    if (this.place === Place.Prolog) this.place = Place.Root;
    const line = this.lineTo(lt);
    this.handler.startTag(name, this.attributes, line);
    if (empty) {
      this.handler.endTag(name);
      if (this.open.length === 0) this.place = Place.Epilog;
    } else {
      this.open.push(name);
    }
  }

  private endTag(lt: number): number {
    const buf = this.buf;
    const len = buf.length;
    const open = this.open;
    const top = open[open.length - 1];
    if (top !== undefined) {
      // The common case, `</name>` closing the element open: nothing else to check.
      const gtAt = lt + 2 + top.length;
      if (gtAt < len && buf.charCodeAt(gtAt) === 62 && sameAt(buf, lt + 2, top)) {
        open.pop();
        this.atStart = false;
        this.handler.endTag(top);
        if (open.length === 0) this.place = Place.Epilog;
        return gtAt + 1;
      }
    }
    const gt = buf.indexOf('>', lt + 2);
    if (gt < 0) {
      // Only a name and white space may come before the '>'.
      const stop = nameEnd(buf, lt + 2, len);
      let i = stop;
      while (i < len && buf.charCodeAt(i) < 128 && (ASCII[buf.charCodeAt(i)] as number) & SPACE)
        i++;
      if (i < len) this.fail('disallowed character in closing tag', i);
      return INCOMPLETE;
    }
    this.atStart = false;
    const stop = nameEnd(buf, lt + 2, gt);
    for (let i = stop; i < gt; i++) {
      const c = buf.charCodeAt(i);
      if (!(c < 128 && (ASCII[c] as number) & SPACE))
        this.fail('disallowed character in closing tag', i);
    }
    const name = buf.slice(lt + 2, stop);
    if (name === '') this.fail('weird empty close tag', gt);
    const closed = open.pop();
    if (closed === undefined) this.fail(`unmatched closing tag: ${name}`, gt);
    if (closed !== name) this.fail(`unexpected close tag </${name}>: <${closed}> is open`, gt);
    this.handler.endTag(name);
    if (this.open.length === 0) this.place = Place.Epilog;
    return gt + 1;
  }

  private comment(lt: number): number {
    const buf = this.buf;
    const dashes = buf.indexOf('--', lt + 4);
    if (dashes < 0) return INCOMPLETE;
    if (dashes + 2 >= buf.length) return INCOMPLETE;
    if (buf.charCodeAt(dashes + 2) !== 62) this.fail('malformed comment', dashes + 2);
    return dashes + 3;
  }

  private cdata(lt: number): number {
    if (this.place !== Place.Root) this.fail('text data outside of root node', lt + 8);
    const buf = this.buf;
    const close = buf.indexOf(']]>', lt + 9);
    if (close < 0) {
      // Hand on what is there (keeping a possible "]" or "]]" of the end) only at a chunk end.
      return INCOMPLETE;
    }
    if (this.handler.wantsText && close > lt + 9) this.handler.text(buf.slice(lt + 9, close));
    return close + 3;
  }

  private processingInstruction(lt: number): number {
    const buf = this.buf;
    const len = buf.length;
    const targetEnd = nameEnd(buf, lt + 2, len);
    if (targetEnd >= len) return INCOMPLETE;
    const c = buf.charCodeAt(targetEnd);
    const spaceOrEnd = c === 63 || (c < 128 && (ASCII[c] as number) & SPACE);
    if (targetEnd === lt + 2) {
      this.fail(
        spaceOrEnd
          ? 'processing instruction without a target'
          : 'disallowed character in processing instruction name',
        lt + 2,
      );
    }
    if (!spaceOrEnd) this.fail('disallowed character in processing instruction name', targetEnd);
    const target = buf.slice(lt + 2, targetEnd);
    if (target === 'xml') {
      if (!this.atStart) {
        this.fail('an XML declaration must be at the start of the document', targetEnd);
      }
      // Its values hold no '?', '<' or '>': the first of them must be the '?' of its '?>'.
      DECLARATION_END.lastIndex = targetEnd;
      const stop = DECLARATION_END.exec(buf)?.index ?? -1;
      if (stop < 0) return INCOMPLETE;
      this.xmlDeclaration(targetEnd, stop);
      if (buf.charCodeAt(stop) !== 63) this.fail('XML declaration is incomplete', stop);
      if (stop + 1 >= len) return INCOMPLETE;
      if (buf.charCodeAt(stop + 1) !== 62) {
        this.fail('The character ? is disallowed anywhere in XML declarations', stop + 1);
      }
      this.atStart = false;
      return stop + 2;
    }
    const close = buf.indexOf('?>', targetEnd);
    if (close < 0) return INCOMPLETE;
    if (target.toLowerCase() === 'xml') {
      this.fail('the XML declaration must appear at the start of the document', close + 1);
    }
    this.atStart = false;
    return close + 2;
  }

  /** The pseudo-attributes of the XML declaration in [from, to): version, encoding, standalone. */
  private xmlDeclaration(from: number, to: number): void {
    const body = this.buf.slice(from, to);
    const expected = ['version', 'encoding', 'standalone'];
    const pair = /\s*([^\s=]*)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|(\S*)))?/y;
    let at = 0;
    let sawVersion = false;
    while (at < body.length) {
      if (at > 0 && !/\s/.test(body[at] ?? '')) this.fail('whitespace required', from + at);
      pair.lastIndex = at;
      const m = pair.exec(body);
      if (m === null || m[0] === '') break;
      at = pair.lastIndex;
      const name = m[1] ?? '';
      if (name === '' && m[2] === undefined && m[3] === undefined && m[4] === undefined) break;
      const place = expected.indexOf(name);
      if (place < 0) {
        this.fail(
          name === ''
            ? 'did not expect any more name/value pairs'
            : `expected one of ${expected.join(', ')}`,
          from + at,
        );
      }
      const value = m[2] ?? m[3];
      if (value === undefined) {
        this.fail(
          m[4] !== undefined && m[4] !== '' ? 'value must be quoted' : 'value required',
          from + at,
        );
      }
      if (name === 'version') {
        if (!VERSION.test(value)) this.fail('version number must match /^1\\.[0-9]+$/', from + at);
        sawVersion = true;
      } else if (name === 'encoding') {
        if (!ENCODING_NAME.test(value))
          this.fail('encoding value must match /^[A-Za-z0-9][A-Za-z0-9._-]*$/', from + at);
      } else if (value !== 'yes' && value !== 'no') {
        this.fail('standalone value must match "yes" or "no"', from + at);
      }
      if (!sawVersion) this.fail('XML declaration must contain a version', from + at);
      expected.splice(0, place + 1);
    }
    if (!sawVersion) this.fail('XML declaration must contain a version', to);
  }

  /**
   * The DOCTYPE declaration: read to its `>`, skipping quoted strings and, in the internal
   * subset, comments, processing instructions and quoted strings; the handler reads the
   * entity declarations from its text.
   */
  private doctype(lt: number): number {
    if (this.sawDoctype || this.place !== Place.Prolog) {
      this.fail('inappropriately located doctype declaration', lt + 8);
    }
    const buf = this.buf;
    const len = buf.length;
    let i = lt + 9;
    let inSubset = false;
    while (i < len) {
      const c = buf.charCodeAt(i);
      if (c === 34 || c === 39) {
        const close = buf.indexOf(c === 34 ? '"' : "'", i + 1);
        if (close < 0) return INCOMPLETE;
        i = close + 1;
      } else if (!inSubset && c === 62) {
        this.sawDoctype = true;
        this.handler.doctype(buf.slice(lt + 9, i), this.lineTo(i));
        return i + 1;
      } else if (!inSubset && c === 91) {
        inSubset = true;
        i++;
      } else if (inSubset && c === 93) {
        inSubset = false;
        i++;
      } else if (inSubset && c === 60) {
        // Markup declarations are kept as text for the entity reader; comments and
        // processing instructions are skipped so that quotes and brackets in them do not count.
        if (i + 3 >= len) return INCOMPLETE;
        if (buf.startsWith('<!--', i)) {
          const dashes = buf.indexOf('--', i + 4);
          if (dashes < 0 || dashes + 2 >= len) return INCOMPLETE;
          if (buf.charCodeAt(dashes + 2) !== 62) this.fail('malformed comment', dashes + 2);
          i = dashes + 3;
        } else if (buf.charCodeAt(i + 1) === 63) {
          // As saxes does: such a processing instruction ends at the first '>' after a '?'.
          const question = buf.indexOf('?', i + 2);
          const close = question < 0 ? -1 : buf.indexOf('>', question + 1);
          if (close < 0) return INCOMPLETE;
          i = close + 1;
        } else {
          i += buf.charCodeAt(i + 1) === 33 ? 3 : 2;
        }
      } else {
        i++;
      }
    }
    return INCOMPLETE;
  }
}

/** Tabs and line ends in an attribute value read as spaces (XML attribute-value normalisation). */
function normaliseSpace(text: string): string {
  return text.includes('\t') || text.includes('\n') ? text.replace(/[\t\n]/g, ' ') : text;
}
