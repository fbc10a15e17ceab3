import { Buffer, isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

/**
 * Bytes that are not valid in the document's encoding. `validText` is the decoded text before
 * the first bad byte, so the caller can feed it to the parser and report the right line.
 */
export class InvalidBytesError extends Error {
  override name = 'InvalidBytesError';

  constructor(
    message: string,
    readonly validText: string,
  ) {
    super(message);
  }
}

/** An encoding the document asks for that cannot be used; always on the first line. */
export class UnsupportedEncodingError extends Error {
  override name = 'UnsupportedEncodingError';
}

/** Longest XML declaration looked at; real ones are well under 100 bytes. */
const MAX_DECLARATION_BYTES = 1024;
const DECLARED_ENCODING = /^<\?xml\s[^>]*?\bencoding\s*=\s*(?:"([^"]*)"|'([^']*)')/;

/** Number of bytes of a UTF-8 sequence introduced by `lead`, or 0 when it is no lead byte. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Length of the prefix of `buf` that ends on a character boundary: a multi-byte sequence cut by
 * the end of the chunk is left for the next chunk. Bytes that cannot start a sequence are left
 * in, so validation reports them.
 */
function completePrefixLength(buf: Uint8Array): number {
  const len = buf.length;
  let i = len - 1;
  const stop = Math.max(0, len - 4);
  while (i >= stop && ((buf[i] ?? 0) & 0xc0) === 0x80) i--;
  if (i < stop) return len;
  const need = sequenceLength(buf[i] ?? 0);
  return need > 1 && i + need > len ? i : len;
}

/**
 * Index of the first byte of the first invalid UTF-8 sequence (overlong forms, surrogates and
 * code points above U+10FFFF included), or -1 when the bytes are valid. Only used once
 * `isUtf8` has said there is a problem, so it need not be fast.
 */
export function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  const len = buf.length;
  while (i < len) {
    const b = buf[i] ?? 0;
    const n = sequenceLength(b);
    if (n === 0) return i;
    if (n === 1) {
      i++;
      continue;
    }
    if (i + n > len) return i;
    const b1 = buf[i + 1] ?? 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (b === 0xe0) lo = 0xa0;
    else if (b === 0xed) hi = 0x9f;
    else if (b === 0xf0) lo = 0x90;
    else if (b === 0xf4) hi = 0x8f;
    if (b1 < lo || b1 > hi) return i;
    for (let k = 2; k < n; k++) if (((buf[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += n;
  }
  return -1;
}

/** The bytes of the sequence starting at `at` (as many as its lead byte announces), in hex. */
function hexBytes(buf: Uint8Array, at: number): string {
  const length = Math.max(1, sequenceLength(buf[at] ?? 0));
  return Array.from(
    buf.subarray(at, at + length),
    (b) => `0x${b.toString(16).padStart(2, '0')}`,
  ).join(' ');
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
}

/**
 * Decodes the bytes of an XML document chunk by chunk, choosing the encoding as XML 1.0
 * appendix F says: a byte order mark first, else the `encoding` of the XML declaration, else
 * UTF-8. UTF-8 (nearly every XMLTV file) takes a fast path: validate with simdutf's `isUtf8`,
 * then decode with `Buffer#toString`; the slow scan that finds the exact bad byte only runs on
 * failure. Other encodings go through a fatal `TextDecoder` of the declared label.
 */
export class XmlTextDecoder {
  /** WHATWG name of the encoding in use, once known. */
  encoding: string | null = null;
  private head: Buffer | null = Buffer.alloc(0);
  private carry: Buffer | null = null;
  private decoder: TextDecoder | null = null;

  /** Decodes the next chunk; returns '' while the first bytes are still being looked at. */
  push(chunk: Uint8Array): string {
    if (this.head !== null) {
      this.head = Buffer.concat([this.head, chunk]);
      if (!this.sniff(false)) return '';
      const rest = this.head;
      this.head = null;
      return this.decode(rest);
    }
    return this.decode(asBuffer(chunk));
  }

  /** Decodes what is left at the end of the input. */
  end(): string {
    let text = '';
    if (this.head !== null) {
      this.sniff(true);
      const rest = this.head;
      this.head = null;
      text = this.decode(rest);
    }
    if (this.decoder !== null) {
      try {
        return text + this.decoder.decode();
      } catch {
        throw new InvalidBytesError(
          `the input ends inside a character of its encoding ${this.encoding}`,
          text,
        );
      }
    }
    if (this.carry !== null) {
      const carry = this.carry;
      this.carry = null;
      throw new InvalidBytesError(
        `invalid UTF-8: the input ends inside a character (bytes ${hexBytes(carry, 0)})`,
        text,
      );
    }
    return text;
  }

  /**
   * Picks the encoding from the first bytes in `head`, and strips a byte order mark. Returns
   * false when more bytes are needed to decide (and `atEnd` is false).
   */
  private sniff(atEnd: boolean): boolean {
    const head = this.head ?? Buffer.alloc(0);
    if (head.length < 4 && !atEnd) return false;
    const [b0, b1, b2, b3] = [head[0], head[1], head[2], head[3]];
    if (b0 === 0xfe && b1 === 0xff) return this.useDecoder('utf-16be', head.subarray(2));
    if (b0 === 0xff && b1 === 0xfe) return this.useDecoder('utf-16le', head.subarray(2));
    if (b0 === 0x3c && b1 === 0x00 && b2 === 0x3f && b3 === 0x00) {
      return this.useDecoder('utf-16le', head);
    }
    if (b0 === 0x00 && b1 === 0x3c && b2 === 0x00 && b3 === 0x3f) {
      return this.useDecoder('utf-16be', head);
    }
    const bom = b0 === 0xef && b1 === 0xbb && b2 === 0xbf;
    const body = bom ? head.subarray(3) : head;
    // The declaration is ASCII in every ASCII-compatible encoding, so latin1 shows it as is.
    const start = body.toString('latin1', 0, Math.min(body.length, MAX_DECLARATION_BYTES));
    let label: string | undefined;
    if (start.startsWith('<?xml')) {
      const end = start.indexOf('?>');
      if (end < 0 && !atEnd && body.length < MAX_DECLARATION_BYTES) return false;
      const m = DECLARED_ENCODING.exec(end < 0 ? start : start.slice(0, end + 2));
      label = m?.[1] ?? m?.[2];
    }
    let encoding = 'utf-8';
    if (label !== undefined) {
      try {
        encoding = new TextDecoder(label.trim()).encoding;
      } catch {
        throw new UnsupportedEncodingError(
          `the XML declaration names encoding "${label}", which is not supported`,
        );
      }
      if (encoding.startsWith('utf-16')) {
        throw new UnsupportedEncodingError(
          `the XML declaration says "${label}" but the file has no UTF-16 byte order mark`,
        );
      }
      if (bom && encoding !== 'utf-8') {
        throw new UnsupportedEncodingError(
          `the file starts with a UTF-8 byte order mark but declares encoding "${label}"`,
        );
      }
    }
    if (encoding === 'utf-8') {
      this.encoding = 'utf-8';
      this.head = body;
      return true;
    }
    return this.useDecoder(encoding, body);
  }

  private useDecoder(encoding: string, rest: Buffer): boolean {
    this.decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    this.encoding = this.decoder.encoding;
    this.head = rest;
    return true;
  }

  private decode(chunk: Buffer): string {
    if (this.decoder !== null) {
      try {
        return this.decoder.decode(chunk, { stream: true });
      } catch {
        throw new InvalidBytesError(`bytes that are not valid ${this.encoding}`, '');
      }
    }
    let buf = chunk;
    if (this.carry !== null) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = null;
    }
    const end = completePrefixLength(buf);
    if (end < buf.length) this.carry = Buffer.from(buf.subarray(end));
    const body = end < buf.length ? buf.subarray(0, end) : buf;
    if (isUtf8(body)) return body.toString('utf8');
    const bad = firstInvalidUtf8(body);
    const at = bad < 0 ? 0 : bad;
    throw new InvalidBytesError(
      `invalid UTF-8 byte sequence (${hexBytes(body, at)})`,
      body.toString('utf8', 0, at),
    );
  }
}
