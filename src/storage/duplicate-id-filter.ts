/** Bits of the filter: 2^27 (16 MiB), whatever the size of the input. */
const BIT_COUNT = 1 << 27;
/** Bits of a block, one 64-byte cache line: every probe of a key falls in its key's block. */
const BLOCK_BITS = 512;
const BLOCK_SHIFT = 32 - Math.log2(BIT_COUNT / BLOCK_BITS);
/** Bit positions per key. */
const PROBES = 4;

/**
 * A Bloom filter over the programme ids an ingest stages (or the slot keys they are made from,
 * which repeat exactly when the ids do, and whose parsed starts StagedProgrammes adds as
 * instants), so that finding the ids staged more than once does
 * not need every staged id sorted or indexed (the costliest step after the last row,
 * measured). For an id never added it answers "new" for certain; it flags every repeat and,
 * rarely, an id it has not seen (false positives, measured on slot keys: none among 300,000, 54
 * among 3 million). The ingest then checks only the flagged ids exactly. Memory is fixed, so it
 * stays flat whatever the size of the input.
 *
 * Blocked: a key's probes all fall in one 512-bit block, so an add costs one cache miss, not
 * one per probe (the filter is far larger than the CPU's caches). Four misses per key made it
 * the parser thread's costliest function after the scanner's tag reader (about 0.8 µs a key);
 * the blocks' uneven load costs a little accuracy (54 false positives among 3 million keys
 * against 37 unblocked), well within what the ingest needs.
 */
export class DuplicateIdFilter {
  private readonly words = new Int32Array(BIT_COUNT >>> 5);

  /**
   * The hash state after `prefix`. Keys that share a prefix (a channel's slot keys share the
   * channel id) then hash only the rest, with `addAfter`: two thirds of a slot key's
   * characters, and about half the filter's cost on the parser's thread (measured).
   */
  prefix(prefix: string): KeyPrefix {
    const [h1, h2] = hashOn(INITIAL.h1, INITIAL.h2, prefix);
    return { h1, h2, length: prefix.length };
  }

  /** Adds `id`; true when it may have been added before, false when it certainly was not. */
  add(id: string): boolean {
    return this.addAfter(INITIAL, id);
  }

  /** Adds the key `prefix + rest`, as `add` would, from the prefix's hash state. */
  addAfter(prefix: KeyPrefix, rest: string): boolean {
    const [h1, h2] = hashOn(prefix.h1, prefix.h2, rest);
    return this.setBits(mix(h1 ^ (prefix.length + rest.length)), mix(h2));
  }

  /**
   * Adds the key made of `prefix` and the integer `value` (an instant in milliseconds): its two
   * 32-bit halves are hashed as two units, far cheaper than the instant's text.
   */
  addNumberAfter(prefix: KeyPrefix, value: number): boolean {
    const low = value | 0;
    const high = Math.floor(value / 0x1_0000_0000) | 0;
    const [l1, l2] = hashUnit(prefix.h1, prefix.h2, low);
    const [h1, h2] = hashUnit(l1, l2, high);
    // The length term differs from any text key's, so the two kinds of key hash apart.
    return this.setBits(mix(h1 ^ ~prefix.length), mix(h2));
  }

  /** Sets the key's bits in its block; true when all were set already. */
  private setBits(h1: number, h2: number): boolean {
    const block = (h1 >>> BLOCK_SHIFT) * (BLOCK_BITS >>> 5);
    let seen = true;
    for (let i = 0; i < PROBES; i++) {
      const bit = (i < PROBES - 1 ? h2 >>> (9 * i) : h1) & (BLOCK_BITS - 1);
      const word = block + (bit >>> 5);
      const mask = 1 << (bit & 31);
      const value = this.words[word] as number;
      if ((value & mask) === 0) {
        seen = false;
        this.words[word] = value | mask;
      }
    }
    return seen;
  }
}

/** The hash state of a key's first characters (see DuplicateIdFilter.prefix). */
export interface KeyPrefix {
  readonly h1: number;
  readonly h2: number;
  readonly length: number;
}

const INITIAL: KeyPrefix = { h1: 0x811c9dc5, h2: 0x9747b28c, length: 0 };

/**
 * Two 32-bit hashes of the UTF-16 code units (FNV-1a and a multiply-xorshift), continued from
 * (h1, h2) over `text`. Mixed at the end of a key: the first's high bits choose the block, and
 * four 9-bit fields (three of the second, the low bits of the first) the bits within it.
 * Independent fields, not first + i·step: with steps, two keys of a block could set the same
 * four bits in reverse order, which made false positives about ten times likelier (measured).
 */
function hashOn(h1: number, h2: number, text: string): [number, number] {
  for (let i = 0; i < text.length; i++) [h1, h2] = hashUnit(h1, h2, text.charCodeAt(i));
  return [h1, h2];
}

/** One step of hashOn, over one unit: a code unit, or any 32-bit integer. */
function hashUnit(h1: number, h2: number, unit: number): [number, number] {
  h1 = Math.imul(h1 ^ unit, 0x01000193);
  h2 = Math.imul(h2 ^ unit, 0x5bd1e995);
  return [h1, h2 ^ (h2 >>> 15)];
}

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the output. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
