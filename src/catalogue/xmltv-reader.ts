import { SaxesParser, type SaxesStartTagPlain, type SaxesTagPlain } from 'saxes';
import {
  EntityDeclarationError,
  MAX_ENTITY_EXPANSION_CHARS,
  PREDEFINED_ENTITIES,
  parseEntityDeclarations,
} from './doctype-entities.js';
import { IngestError, describeError } from './ingest-error.js';
import { InvalidBytesError, UnsupportedEncodingError, XmlTextDecoder } from './xml-text-decoder.js';

export { IngestError } from './ingest-error.js';

/** A `<channel>` element: what the catalogue uses of it. */
export interface XmltvChannel {
  /** The `id` attribute ('' when missing). */
  xmltvId: string;
  /** Every `<display-name>` text, in document order (surrounding whitespace trimmed). */
  displayNames: string[];
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
  /** Line of the `<programme` start tag. */
  line: number;
}

/** Receives the elements as they are read; called synchronously from inside the parser. */
export interface XmltvVisitor {
  channel(channel: XmltvChannel): void;
  programme(programme: XmltvProgramme): void;
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
 * Deepest element nesting accepted. XMLTV needs about five levels (tv, programme, credits,
 * actor, image); the parser keeps every open element, so nesting without bound would grow
 * memory without bound.
 */
export const MAX_ELEMENT_DEPTH = 64;

/**
 * Most characters accepted between two pieces of markup: one text node, attribute value,
 * comment or DOCTYPE. The parser holds such a run whole until it ends, so a longer one is
 * refused rather than held (guides have texts of a few kilobytes). Checked after each input
 * chunk, so a run is refused at most one chunk past the limit.
 */
export const MAX_TOKEN_CHARS = 8 * 1024 * 1024;

/** "12:5: unexpected close tag." → line 12, "unexpected close tag". */
const SAXES_MESSAGE = /^(\d+):\d+: (.*?)\.?$/s;

/**
 * Streaming XMLTV reader over saxes. Keeps only the element being read (never the document or
 * the programmes read so far), so memory stays flat whatever the size of the input. Elements
 * and attributes other than the ones in XmltvChannel / XmltvProgramme are skipped.
 */
class XmltvSaxReader {
  readonly parser = new SaxesParser({ xmlns: false, position: true });
  private depth = 0;
  private readonly openNames: string[] = [];
  private pendingTag: string | null = null;
  private tagLine = 1;
  private sawRoot = false;
  private mode = Mode.None;
  private capture = Capture.None;
  private captureDepth = 0;
  private captured = '';
  private expansionBudget: number;
  /** Characters written to the parser, and its position at the last tag, comment or declaration. */
  private written = 0;
  private lastMarkupAt = 0;

  private channelId = '';
  private channelNames: string[] = [];
  private channelIcon: string | null = null;
  private elementLine = 0;

  private progChannel: string | null = null;
  private progStart: string | null = null;
  private progStop: string | null = null;
  private progTitle: string | null = null;
  private progDesc: string | null = null;
  private progCategories: string[] = [];

  channelElements = 0;
  programmeElements = 0;
  /** Lines in the document, set by `finish` (closing the parser resets its position). */
  lines = 0;
  private endsWithNewline = false;

  constructor(
    private readonly visitor: XmltvVisitor,
    maxExpansion: number,
  ) {
    this.expansionBudget = maxExpansion;
    const p = this.parser;
    // A prototype-less table: saxes' default inherits from Object.prototype, so `&constructor;`
    // would resolve to a function instead of failing as an undefined entity.
    p.ENTITIES = Object.assign(Object.create(null) as Record<string, string>, PREDEFINED_ENTITIES);
    p.on('error', this.onError);
    p.on('doctype', this.onDoctype);
    p.on('opentagstart', this.onOpenTagStart);
    p.on('opentag', this.onOpenTag);
    p.on('closetag', this.onCloseTag);
    p.on('text', this.onText);
    p.on('cdata', this.onText);
    p.on('comment', this.onOtherMarkup);
    p.on('processinginstruction', this.onOtherMarkup);
  }

  /** Feeds decoded text to the parser. */
  write(text: string): void {
    if (text === '') return;
    this.endsWithNewline = text.charCodeAt(text.length - 1) === 10;
    this.parser.write(text);
    // Counted here: saxes' own `position` is exact only inside its event handlers.
    this.written += text.length;
    if (this.written - this.lastMarkupAt > MAX_TOKEN_CHARS) {
      throw new IngestError(
        `more than ${MAX_TOKEN_CHARS / (1024 * 1024)} Mi characters of text, attribute, comment or DOCTYPE without markup; the input is refused`,
        this.parser.line,
      );
    }
  }

  /** Checks the document is complete and closes the parser. */
  finish(): void {
    if (this.depth > 0 || this.pendingTag !== null) {
      const names =
        this.pendingTag === null ? this.openNames : [...this.openNames, this.pendingTag];
      const inside =
        names.findLast((n) => n === 'programme' || n === 'channel') ?? names[names.length - 1];
      throw new IngestError(`unexpected end of file inside <${inside}>`, this.parser.line);
    }
    if (!this.sawRoot) {
      throw new IngestError('no <tv> element: the input is empty or not XML', this.parser.line);
    }
    // A final line break ends the last line rather than starting another.
    this.lines = this.parser.line - (this.endsWithNewline ? 1 : 0);
    this.parser.close();
  }

  private readonly onError = (error: Error): void => {
    const m = SAXES_MESSAGE.exec(error.message);
    const line = m?.[1] === undefined ? this.parser.line : Number(m[1]);
    throw new IngestError(`malformed XML: ${m?.[2] ?? error.message}`, line);
  };

  private readonly onOtherMarkup = (): void => {
    this.lastMarkupAt = this.parser.position;
  };

  private readonly onDoctype = (doctype: string): void => {
    this.lastMarkupAt = this.parser.position;
    let entities: Map<string, string>;
    try {
      entities = parseEntityDeclarations(doctype);
    } catch (error) {
      if (error instanceof EntityDeclarationError) {
        // The parser is at the end of the DOCTYPE: count back to the declaration's line.
        const after = doctype.slice(error.offset).split('\n').length - 1;
        throw new IngestError(error.message, this.parser.line - after);
      }
      throw error;
    }
    for (const [name, value] of entities) {
      // A getter, so every expansion is charged against the document's budget.
      Object.defineProperty(this.parser.ENTITIES, name, {
        enumerable: true,
        get: () => {
          this.expansionBudget -= value.length;
          if (this.expansionBudget < 0) {
            throw new IngestError(
              'entity references expand to more text than allowed',
              this.parser.line,
            );
          }
          return value;
        },
      });
    }
  };

  private readonly onOpenTagStart = (tag: SaxesStartTagPlain): void => {
    this.tagLine = this.parser.line;
    this.pendingTag = tag.name;
    this.lastMarkupAt = this.parser.position;
    if (this.depth >= MAX_ELEMENT_DEPTH) {
      throw new IngestError(
        `elements are nested more than ${MAX_ELEMENT_DEPTH} levels deep; the input is refused`,
        this.tagLine,
      );
    }
  };

  private readonly onOpenTag = (tag: SaxesTagPlain): void => {
    this.pendingTag = null;
    const depth = ++this.depth;
    const name = tag.name;
    this.openNames.push(name);
    if (depth === 2) {
      if (name === 'programme') this.startProgramme(tag.attributes);
      else if (name === 'channel') this.startChannel(tag.attributes);
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
        if (name === 'display-name') this.startCapture(Capture.DisplayName);
        else if (name === 'icon' && this.channelIcon === null) {
          this.channelIcon = tag.attributes['src'] ?? null;
        }
      }
    } else if (depth === 1) {
      if (name !== 'tv') {
        throw new IngestError(
          `the root element is <${name}>, not <tv>: this is not an XMLTV document`,
          this.tagLine,
        );
      }
      this.sawRoot = true;
    }
  };

  private readonly onCloseTag = (): void => {
    this.lastMarkupAt = this.parser.position;
    const depth = this.depth;
    if (this.capture !== Capture.None && depth === this.captureDepth) this.endCapture();
    if (depth === 2) {
      if (this.mode === Mode.Programme) this.endProgramme();
      else if (this.mode === Mode.Channel) this.endChannel();
    }
    this.depth = depth - 1;
    this.openNames.pop();
  };

  private readonly onText = (text: string): void => {
    if (this.capture !== Capture.None) this.captured += text;
  };

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
        this.channelNames.push(text);
        break;
      default:
    }
    this.capture = Capture.None;
    this.captured = '';
  }

  private startChannel(attributes: Record<string, string>): void {
    this.mode = Mode.Channel;
    this.elementLine = this.tagLine;
    this.channelId = attributes['id'] ?? '';
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

  private startProgramme(attributes: Record<string, string>): void {
    this.mode = Mode.Programme;
    this.elementLine = this.tagLine;
    this.progChannel = attributes['channel'] ?? null;
    this.progStart = attributes['start'] ?? null;
    this.progStop = attributes['stop'] ?? null;
    this.progTitle = null;
    this.progDesc = null;
    this.progCategories = [];
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
      line: this.elementLine,
    });
  }
}

/** An error from reading the input itself (I/O, network, gunzip), placed at the current line. */
function inputError(error: unknown, line: number): IngestError {
  if (error instanceof IngestError) return error;
  return new IngestError(describeError(error), line);
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
  const reader = new XmltvSaxReader(
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
        throw new IngestError(error.message, reader.parser.line);
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
        throw inputError(error, reader.parser.line);
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
