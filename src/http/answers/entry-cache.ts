import {
  richProgrammeOf,
  type ProgrammeVersion,
  type StoredProgramme,
} from '../../domain/programme.js';

/** Rich entries kept as JSON, by default (bytes, roughly). */
export const DEFAULT_ENTRY_CACHE_BYTES = 64 * 1024 * 1024;

/** A UTF-16 unit a one-byte string cannot hold. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

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
  const entries = new Map<string, string>();
  let bytes = 0;
  // V8 keeps a text with a character beyond Latin-1 (a curly quote, a dash: most entries of some
  // guides) at two bytes a character, so such entries count twice towards `maxBytes`.
  const heapBytes = (text: string) => (BEYOND_LATIN1.test(text) ? 2 : 1) * text.length;
  const keyOf = (p: ProgrammeVersion) =>
    `${p.id}:${p.updatedAt}:${p.sourceFileId}:${p.needsReview ? 1 : 0}`;
  /** The JSON kept under `key`, made the most recently used. */
  const kept = (key: string) => {
    const json = entries.get(key);
    if (json !== undefined) {
      entries.delete(key);
      entries.set(key, json);
    }
    return json;
  };
  return {
    /** The JSON of `p`'s rich entry. */
    json(p: StoredProgramme): string {
      const key = keyOf(p.programme);
      let json = kept(key);
      if (json !== undefined) return json;
      json = JSON.stringify(richProgrammeOf(p.channelId, p.programme, p.details));
      entries.set(key, json);
      bytes += key.length + heapBytes(json);
      for (const [oldKey, victim] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(oldKey);
        bytes -= oldKey.length + heapBytes(victim);
      }
      return json;
    },
    /** The JSON of the rich entry of this version of a programme, when it is kept. */
    kept: (version: ProgrammeVersion): string | undefined => kept(keyOf(version)),
    /** Whether `p`'s entry is kept (for tests). */
    has: (p: StoredProgramme) => entries.has(keyOf(p.programme)),
    /** Entries and bytes held now (for tests). */
    get size() {
      return { entries: entries.size, bytes };
    },
  };
}

export type EntryCache = ReturnType<typeof createEntryCache>;
