/** Bits of the filter: 2^27 (16 MiB), whatever the size of the input. */
const BIT_COUNT = 1 << 27;
const BIT_MASK = BIT_COUNT - 1;
/** Bit positions per key. */
const PROBES = 4;

/**
 * A Bloom filter over the programme ids an ingest stages (or the slot keys they are made from,
 * which repeat exactly when the ids do), so that finding the ids staged more than once does
 * not need every staged id sorted or indexed (the costliest step after the last row,
 * measured). For an id never added it answers "new" for certain; it flags every repeat and,
 * rarely, an id it has not seen (false positives: about 1 in 10^8 ids after 300,000, 1 in 10^4
 * after 3 million). The ingest then checks only the flagged ids exactly. Memory is fixed, so it
 * stays flat whatever the size of the input.
 */
export class DuplicateIdFilter {
  private readonly words = new Int32Array(BIT_COUNT >>> 5);

  /** Adds `id`; true when it may have been added before, false when it certainly was not. */
  add(id: string): boolean {
    // Two 32-bit hashes of the UTF-16 code units (FNV-1a and a multiply-xorshift), mixed, give
    // the probe positions h1 + i·h2 (Kirsch and Mitzenmacher).
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 = mix(h1 ^ id.length);
    h2 = mix(h2) | 1;
    let seen = true;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & BIT_MASK;
      const word = bit >>> 5;
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

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the output. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
