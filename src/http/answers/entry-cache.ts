import { richProgrammeOf, type StoredProgramme } from '../../domain/programme.js';

/** Rich entries kept as JSON, by default (bytes, roughly). */
export const DEFAULT_ENTRY_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Programmes' rich entries as JSON, kept from one answer to the next, one cache for the guide,
 * now/next and search answers: grids whose windows overlap (the same grid minutes later, the
 * next page of channels over the same hours) share most of their programmes, searches find the
 * programmes of the hours ahead again and again, and making the entries is most of an answer's
 * work (a new
 * 500-channel grid of 3,500 entries: 55 ms with none kept, 33 ms on SQLite and 42 ms on
 * PostgreSQL when most are; bench/http.mjs, cold guide). An entry is kept under what it is
 * made from: the programme's id, its `updatedAt` (which moves whenever a v1 field or its rich
 * data changes, docs/catalogue.md), its source file and review flag; so a changed programme is
 * simply another key, and the least recently used go beyond `maxBytes`.
 *
 * Entries are written by `JSON.stringify`, not by the schema's compiled serializer: for
 * thousands of rich entries it is 3× faster (14 ms against 45 ms for 3,000), and it writes what
 * the objects hold in the order they were made, so every entry is made in the schema's order
 * with no other field (channelFields, richProgrammeOf). test/http/programme-details.test.ts
 * checks the bodies against the schema's serializer.
 */
export function createEntryCache(maxBytes = DEFAULT_ENTRY_CACHE_BYTES) {
  /** An entry's JSON, and its UTF-8 once an answer sent as bytes has asked for it. */
  interface Kept {
    json: string;
    bytes: Buffer | null;
  }
  const entries = new Map<string, Kept>();
  let bytes = 0;
  const keyOf = ({ programme: p }: StoredProgramme) =>
    `${p.id}:${p.updatedAt}:${p.sourceFileId}:${p.needsReview ? 1 : 0}`;
  const sizeOf = (key: string, kept: Kept) =>
    key.length + kept.json.length + (kept.bytes?.length ?? 0);

  function entry(p: StoredProgramme): Kept {
    const key = keyOf(p);
    let kept = entries.get(key);
    if (kept !== undefined) {
      entries.delete(key);
      entries.set(key, kept);
      return kept;
    }
    kept = {
      json: JSON.stringify(richProgrammeOf(p.channelId, p.programme, p.details)),
      bytes: null,
    };
    entries.set(key, kept);
    bytes += sizeOf(key, kept);
    evict();
    return kept;
  }

  /** The least recently used go until the rest fit in `maxBytes`. */
  function evict(): void {
    for (const [oldKey, victim] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(oldKey);
      bytes -= sizeOf(oldKey, victim);
    }
  }

  return {
    /** The JSON of `p`'s rich entry. */
    json: (p: StoredProgramme): string => entry(p).json,
    /**
     * The same as UTF-8, kept with it: a body made of many entries is joined from their bytes
     * (`Buffer.concat`), not written as one long string and encoded whole on every answer
     * (51 entries of 1.5 KB: 21–22 µs against 48–115 µs, `node bench/string-pieces.mjs`).
     */
    bytes(p: StoredProgramme): Buffer {
      const kept = entry(p);
      if (kept.bytes === null) {
        kept.bytes = Buffer.from(kept.json);
        // Counted while kept (an entry evicted before now has left the count already).
        if (entries.has(keyOf(p))) {
          bytes += kept.bytes.length;
          evict();
        }
      }
      return kept.bytes;
    },
    /** Whether `p`'s entry is kept (for tests). */
    has: (p: StoredProgramme) => entries.has(keyOf(p)),
    /** Entries and bytes held now (for tests). */
    get size() {
      return { entries: entries.size, bytes };
    },
  };
}

export type EntryCache = ReturnType<typeof createEntryCache>;
