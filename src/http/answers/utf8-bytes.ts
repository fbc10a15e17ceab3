/** Scratch space strings are encoded into; grown on demand, given back when it grew large. */
const SCRATCH_BYTES = 256 * 1024;
const SCRATCH_KEPT_BYTES = 4 * 1024 * 1024;
let scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

/**
 * The UTF-8 bytes of `pieces` one after the other, each encoded as `Buffer.from` encodes it:
 * for pieces of whole text such as JSON (no lone surrogate) what `Buffer.from(pieces.join(''))`
 * gives. Written by hand because an answer made of entries is on the hot path of every search and of
 * each second of a moving guide answer. Joining first makes one string of the whole, and a
 * single entry with a character beyond Latin-1 (a curly quote, a dash: in 60–100 % of the
 * pages of 50 entries from the Australian, German and French guides of the test corpus) makes
 * it a two-byte string, which V8 copies, widens and then encodes slowly: 420–460 µs for a page
 * of 51 entries (82 KB) against 33–57 µs written piece by piece here, and 45–75 against 36–47
 * µs when every entry is ASCII (`node bench/answer-bytes.mjs`). Each string is encoded into a
 * scratch buffer, so no piece is measured first; Buffers (parts encoded once and kept) are
 * copied as they are. The result is a buffer of its own, never a slice of Node's shared pool,
 * since caches keep it.
 */
export function utf8Bytes(pieces: readonly (string | Uint8Array)[]): Buffer {
  // Where each piece's bytes are: [source, start, end] in turn.
  const sources: Uint8Array[] = [];
  const bounds: number[] = [];
  let used = 0;
  let total = 0;
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4).
      if (used + piece.length * 3 > scratch.length) {
        // Pieces already written stay in the old scratch, which `sources` still holds.
        scratch = Buffer.allocUnsafeSlow(Math.max(SCRATCH_BYTES, piece.length * 3));
        used = 0;
      }
      const written = scratch.write(piece, used);
      // Strings written one after the other are one run of the scratch: copied at once.
      const last = sources.length - 1;
      if (last >= 0 && sources[last] === scratch && bounds[2 * last + 1] === used) {
        bounds[2 * last + 1] = used + written;
      } else {
        sources.push(scratch);
        bounds.push(used, used + written);
      }
      used += written;
      total += written;
    } else {
      sources.push(piece);
      bounds.push(0, piece.length);
      total += piece.length;
    }
  }
  const out = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (let i = 0; i < sources.length; i++) {
    const start = bounds[2 * i] as number;
    const end = bounds[2 * i + 1] as number;
    out.set((sources[i] as Uint8Array).subarray(start, end), at);
    at += end - start;
  }
  if (scratch.length > SCRATCH_KEPT_BYTES) scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return out;
}

/**
 * `texts` as UTF-8, comma-separated, in one buffer of their own, and where each begins (one more
 * offset past the end, as if a comma followed the last): a channel's schedule, kept whole so
 * that a window is a slice (schedule-cache.ts). Each text is measured and then written at its
 * place, not joined into one string first (the same reason as utf8Bytes): for the channels of
 * the corpus's guides 1.1–1.9× less time than joining and encoding (`node
 * bench/answer-bytes.mjs`).
 */
export function commaJoinedUtf8(texts: readonly string[]): { bytes: Buffer; offsets: Uint32Array } {
  const offsets = new Uint32Array(texts.length + 1);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    offsets[i] = at;
    at += Buffer.byteLength(texts[i] as string) + 1;
  }
  offsets[texts.length] = at;
  const bytes = Buffer.allocUnsafeSlow(Math.max(0, at - 1));
  for (let i = 0; i < texts.length; i++) {
    bytes.write(texts[i] as string, offsets[i] as number);
    if (i + 1 < texts.length) bytes[(offsets[i + 1] as number) - 1] = COMMA;
  }
  return { bytes, offsets };
}

const COMMA = 0x2c;
