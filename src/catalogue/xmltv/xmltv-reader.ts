import {
  EntityDeclarationError,
  MAX_ENTITY_EXPANSION_CHARS,
  parseEntityDeclarations,
} from './doctype-entities.js';
import { IngestError, describeError } from '../ingest/ingest-error.js';
import { InvalidBytesError, UnsupportedEncodingError, XmlTextDecoder } from './xml-text-decoder.js';
import {
  XmlExpansionError,
  XmlLimitError,
  XmlScanner,
  XmlSyntaxError,
  type XmlAttributes,
  type XmlHandler,
} from './xml-scanner.js';
import type { LangText } from '../../domain/programme-details.js';
import type { XmltvElement } from '../../domain/xmltv-element.js';

export { IngestError } from '../ingest/ingest-error.js';

/** A `<channel>` element: what the catalogue uses of it. */
export interface XmltvChannel {
  /** The `id` attribute ('' when missing). */
  xmltvId: string;
  /**
   * Every `<display-name>`: its text (surrounding whitespace trimmed) and `lang` ('' when
   * absent), in document order.
   */
  displayNames: LangText[];
  /** `src` of the first `<icon>`, or null. */
  iconSrc: string | null;
  /** Line of the `<channel` start tag. */
  line: number;
}

/** A `<programme>` element: what the catalogue uses of it. Null means the part is absent. */
export interface XmltvProgramme {
  channel: string | null;
  start: string | null;
  stop: string | null;
  /** First `<title>` text. */
  title: string | null;
  /** First `<desc>` text. */
  desc: string | null;
  /** Every `<category>` text, in document order. */
  categories: string[];
  /** Every child element, whole, in document order: the rich data (domain/programme-details.ts). */
  elements: XmltvElement[];
  /** Line of the `<programme` start tag. */
  line: number;
}

/** Receives the elements as they are read; called synchronously from inside the parser. */
export interface XmltvVisitor {
  channel(channel: XmltvChannel): void;
  programme(programme: XmltvProgramme): void;
  /**
   * A `<programme>` or `<channel>` not directly inside `<tv>` (inside another element, whose
   * name is `parent`): XMLTV has them only there, so it is skipped, and said.
   */
  misplaced?(name: 'programme' | 'channel', parent: string, line: number): void;
}

export interface XmltvReadOptions {
  /** Awaited after each input chunk has been parsed: lets a consumer apply backpressure. */
  afterChunk?: () => void | Promise<void>;
  /** Most characters entity references may add to the document (default 16 Mi). */
  maxEntityExpansionChars?: number;
}

/** What the reader saw of the document as a whole. */
export interface XmltvReadResult {
  /** WHATWG name of the encoding the bytes were decoded with. */
  encoding: string;
  /** Lines in the document. */
  lines: number;
  channelElements: number;
  programmeElements: number;
}

/**
 * Deepest element nesting accepted. XMLTV needs about five levels (tv, programme, credits,
 * actor, image); the scanner keeps every open element, so nesting without bound would grow
 * memory without bound.
 */
export const MAX_ELEMENT_DEPTH = 64;

/**
 * Most characters accepted between two pieces of markup (one text node), in one piece of
 * markup (a tag with its attributes, a comment, a DOCTYPE), or in one text the reader keeps
 * (a title or description). Each is held whole until it ends, so a longer one is refused rather
 * than held (guides have texts of a few kilobytes).
 */
export const MAX_TOKEN_CHARS = 8 * 1024 * 1024;

/**
 * Most elements, and most characters of text and attributes, kept of one `<programme>`. The
 * reader holds a programme's elements until it ends; the richest guides have a few hundred
 * elements (credits) and a few kilobytes of text per programme.
 */
export const MAX_PROGRAMME_ELEMENTS = 10_000;
export const MAX_PROGRAMME_CHARS = 16 * 1024 * 1024;

/** An element being read; handed on as an XmltvElement once its programme ends. */
interface OpenElement {
  name: string;
  attributes: [string, string][];
  text: string;
  children: OpenElement[];
}

const TOO_LONG = `more than ${MAX_TOKEN_CHARS / (1024 * 1024)} Mi characters of text, attribute, comment or DOCTYPE without markup; the input is refused`;

const enum Mode {
  None,
  Channel,
  Programme,
}

const enum Capture {
  None,
  DisplayName,
  Title,
  Desc,
  Category,
}

/**
 * Streaming XMLTV reader over XmlScanner. Keeps only the element being read (never the
 * document or the programmes read so far), so memory stays flat whatever the size of the
 * input. Elements and attributes other than the ones in XmltvChannel / XmltvProgramme are
 * checked for well-formedness and skipped.
 */
class XmltvReader implements XmlHandler {
  readonly scanner: XmlScanner;
  private depth = 0;
  /** The name of the element open directly inside `<tv>`. */
  private topName = '';
  private sawRoot = false;
  private mode = Mode.None;
  private capture = Capture.None;
  private captureDepth = 0;
  private captured = '';
  private entities: Map<string, string> = new Map();

  private channelId = '';
  private channelNames: LangText[] = [];
  /** The `lang` of the `<display-name>` being read. */
  private channelNameLang = '';
  private channelIcon: string | null = null;
  private elementLine = 0;

  private progChannel: string | null = null;
  private progStart: string | null = null;
  private progStop: string | null = null;
  private progTitle: string | null = null;
  private progDesc: string | null = null;
  private progCategories: string[] = [];
  private progElements: OpenElement[] = [];
  /** The programme's open elements below it, innermost last. */
  private readonly open: OpenElement[] = [];
  private progElementCount = 0;
  private progChars = 0;

  channelElements = 0;
  programmeElements = 0;
  /** Lines in the document, set by `finish`. */
  lines = 0;
  private endsWithNewline = false;
  /** Whether any text has been read: an input that fails before has no line to name. */
  textSeen = false;

  constructor(
    private readonly visitor: XmltvVisitor,
    maxExpansion: number,
  ) {
    this.scanner = new XmlScanner(
      this,
      (name) => this.entities.get(name),
      maxExpansion,
      MAX_TOKEN_CHARS,
    );
  }

  get wantsText(): boolean {
    return this.capture !== Capture.None || this.open.length > 0;
  }

  /** Feeds decoded text to the parser. */
  write(text: string): void {
    if (text === '') return;
    this.textSeen = true;
    this.endsWithNewline = text.charCodeAt(text.length - 1) === 10;
    try {
      this.scanner.push(text);
    } catch (error) {
      throw asIngestError(error);
    }
  }

  /** Line reached so far. */
  get line(): number {
    return this.scanner.lineAtEnd();
  }

  /** Checks the document is complete. */
  finish(): void {
    const scanner = this.scanner;
    const unfinished = scanner.unfinishedTag();
    const open = scanner.openElements();
    if (open.length > 0 || unfinished !== null) {
      const names = unfinished === null ? open : [...open, unfinished];
      const inside =
        names.findLast((n) => n === 'programme' || n === 'channel') ?? names[names.length - 1];
      throw new IngestError(`unexpected end of file inside <${inside}>`, scanner.lineAtEnd());
    }
    if (!this.sawRoot) {
      throw new IngestError('no <tv> element: the input is empty or not XML', scanner.lineAtEnd());
    }
    // A final line break ends the last line rather than starting another.
    this.lines = scanner.lineAtEnd() - (this.endsWithNewline ? 1 : 0);
    try {
      scanner.end();
    } catch (error) {
      throw asIngestError(error);
    }
  }

  doctype(text: string, endLine: number): void {
    try {
      this.entities = parseEntityDeclarations(text);
    } catch (error) {
      if (error instanceof EntityDeclarationError) {
        // Count back from the DOCTYPE's end to the declaration's line.
        const after = text.slice(error.offset).split('\n').length - 1;
        throw new IngestError(error.message, endLine - after);
      }
      throw error;
    }
  }

  startTag(name: string, attributes: XmlAttributes, line: number): void {
    if (this.depth >= MAX_ELEMENT_DEPTH) {
      throw new IngestError(
        `elements are nested more than ${MAX_ELEMENT_DEPTH} levels deep; the input is refused`,
        line,
      );
    }
    const depth = ++this.depth;
    if (depth >= 3 && this.mode === Mode.Programme) this.keepElement(name, attributes);
    else if (depth >= 3 && (name === 'programme' || name === 'channel')) {
      this.visitor.misplaced?.(name, this.topName, line);
    }
    if (depth === 2) {
      this.topName = name;
      if (name === 'programme') this.startProgramme(attributes, line);
      else if (name === 'channel') this.startChannel(attributes, line);
    } else if (depth === 3) {
      if (this.mode === Mode.Programme) {
        if (name === 'title') {
          if (this.progTitle === null) this.startCapture(Capture.Title);
        } else if (name === 'desc') {
          if (this.progDesc === null) this.startCapture(Capture.Desc);
        } else if (name === 'category') {
          this.startCapture(Capture.Category);
        }
      } else if (this.mode === Mode.Channel) {
        if (name === 'display-name') {
          this.channelNameLang = attributes.get('lang') ?? '';
          this.startCapture(Capture.DisplayName);
        } else if (name === 'icon' && this.channelIcon === null) {
          this.channelIcon = attributes.get('src') ?? null;
        }
      }
    } else if (depth === 1) {
      if (name !== 'tv') {
        throw new IngestError(
          `the root element is <${name}>, not <tv>: this is not an XMLTV document`,
          line,
        );
      }
      this.sawRoot = true;
    }
  }

  endTag(): void {
    const depth = this.depth;
    if (this.capture !== Capture.None && depth === this.captureDepth) this.endCapture();
    if (depth >= 3 && this.mode === Mode.Programme) this.open.pop();
    if (depth === 2) {
      if (this.mode === Mode.Programme) this.endProgramme();
      else if (this.mode === Mode.Channel) this.endChannel();
    }
    this.depth = depth - 1;
  }

  text(piece: string): void {
    if (this.capture !== Capture.None) {
      this.captured += piece;
      // Comments between its pieces would otherwise let one kept text grow without bound.
      if (this.captured.length > MAX_TOKEN_CHARS) {
        throw new IngestError(TOO_LONG, this.scanner.lineAtEnd());
      }
    }
    const innermost = this.open[this.open.length - 1];
    if (innermost !== undefined) {
      innermost.text += piece;
      this.countChars(piece.length);
    }
  }

  /** Adds an element of the programme being read to its tree. */
  private keepElement(name: string, attributes: XmlAttributes): void {
    // Refusals name the programme's line: its text may end lines after it is counted.
    if (++this.progElementCount > MAX_PROGRAMME_ELEMENTS) {
      throw new IngestError(
        `a <programme> holds more than ${MAX_PROGRAMME_ELEMENTS} elements; the input is refused`,
        this.elementLine,
      );
    }
    const entries = attributes.entries();
    let chars = name.length;
    for (const [key, value] of entries) chars += key.length + value.length;
    this.countChars(chars);
    const element: OpenElement = { name, attributes: entries, text: '', children: [] };
    const parent = this.open[this.open.length - 1];
    if (parent === undefined) this.progElements.push(element);
    else parent.children.push(element);
    this.open.push(element);
  }

  private countChars(chars: number): void {
    this.progChars += chars;
    if (this.progChars > MAX_PROGRAMME_CHARS) {
      throw new IngestError(
        `a <programme> holds more than ${MAX_PROGRAMME_CHARS / (1024 * 1024)} Mi characters of text and attributes; the input is refused`,
        this.elementLine,
      );
    }
  }

  private startCapture(kind: Capture): void {
    this.capture = kind;
    this.captureDepth = this.depth;
    this.captured = '';
  }

  private endCapture(): void {
    const text = this.captured.trim();
    switch (this.capture) {
      case Capture.Title:
        this.progTitle = text;
        break;
      case Capture.Desc:
        this.progDesc = text;
        break;
      case Capture.Category:
        this.progCategories.push(text);
        break;
      case Capture.DisplayName:
        this.channelNames.push({ value: text, lang: this.channelNameLang });
        break;
      default:
    }
    this.capture = Capture.None;
    this.captured = '';
  }

  private startChannel(attributes: XmlAttributes, line: number): void {
    this.mode = Mode.Channel;
    this.elementLine = line;
    this.channelId = attributes.get('id') ?? '';
    this.channelNames = [];
    this.channelIcon = null;
  }

  private endChannel(): void {
    this.mode = Mode.None;
    this.channelElements++;
    this.visitor.channel({
      xmltvId: this.channelId,
      displayNames: this.channelNames,
      iconSrc: this.channelIcon,
      line: this.elementLine,
    });
  }

  private startProgramme(attributes: XmlAttributes, line: number): void {
    this.mode = Mode.Programme;
    this.elementLine = line;
    this.progChannel = attributes.get('channel') ?? null;
    this.progStart = attributes.get('start') ?? null;
    this.progStop = attributes.get('stop') ?? null;
    this.progTitle = null;
    this.progDesc = null;
    this.progCategories = [];
    this.progElements = [];
    this.progElementCount = 0;
    this.progChars = 0;
  }

  private endProgramme(): void {
    this.mode = Mode.None;
    this.programmeElements++;
    this.visitor.programme({
      channel: this.progChannel,
      start: this.progStart,
      stop: this.progStop,
      title: this.progTitle,
      desc: this.progDesc,
      categories: this.progCategories,
      elements: this.progElements,
      line: this.elementLine,
    });
  }
}

/** The scanner's errors as the ingest reports them; other errors pass through. */
function asIngestError(error: unknown): unknown {
  if (error instanceof XmlSyntaxError) {
    return new IngestError(`malformed XML: ${error.message}`, error.line);
  }
  if (error instanceof XmlExpansionError) return new IngestError(error.message, error.line);
  if (error instanceof XmlLimitError) return new IngestError(TOO_LONG, error.line);
  return error;
}

/**
 * An error from reading the input itself (I/O, network, gunzip), placed at the line reached
 * (where a cut download or gzip stream ended), or at none when no text was read: "line 1" of a
 * file that is not gzip at all would point at nothing.
 */
function inputError(error: unknown, reader: XmltvReader): IngestError {
  if (error instanceof IngestError) return error;
  return new IngestError(describeError(error), reader.textSeen ? reader.line : null);
}

/**
 * Reads an XMLTV document from a stream of bytes and hands each `<channel>` and `<programme>`
 * to the visitor. Throws IngestError (message `line N: …`) for malformed XML, bytes that are
 * not valid in the document's encoding, an unsupported encoding, refused entity declarations,
 * a document that is not XMLTV, or an input that ends early; errors thrown by the visitor pass
 * through unchanged.
 */
export async function readXmltv(
  input: AsyncIterable<Uint8Array>,
  visitor: XmltvVisitor,
  options: XmltvReadOptions = {},
): Promise<XmltvReadResult> {
  const reader = new XmltvReader(
    visitor,
    options.maxEntityExpansionChars ?? MAX_ENTITY_EXPANSION_CHARS,
  );
  const decoder = new XmlTextDecoder();
  const feed = (decode: () => string): void => {
    let text: string;
    try {
      text = decode();
    } catch (error) {
      if (error instanceof InvalidBytesError) {
        reader.write(error.validText);
        throw new IngestError(error.message, reader.line);
      }
      if (error instanceof UnsupportedEncodingError) throw new IngestError(error.message, 1);
      throw error;
    }
    reader.write(text);
  };

  const chunks = input[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<Uint8Array>;
      try {
        step = await chunks.next();
      } catch (error) {
        finished = true; // a failed iterator is already closed
        throw inputError(error, reader);
      }
      if (step.done === true) break;
      const chunk = step.value;
      feed(() => decoder.push(chunk));
      if (options.afterChunk !== undefined) await options.afterChunk();
    }
    finished = true;
    feed(() => decoder.end());
    reader.finish();
  } finally {
    // Stops a file read or download that an error cut short.
    if (!finished) await chunks.return?.().catch(() => undefined);
  }
  return {
    encoding: decoder.encoding ?? 'utf-8',
    lines: reader.lines,
    channelElements: reader.channelElements,
    programmeElements: reader.programmeElements,
  };
}
