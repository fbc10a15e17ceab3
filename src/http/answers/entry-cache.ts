import {
  richProgrammeOf,
  type ProgrammeVersion,
  type StoredProgramme,
} from '../../domain/programme.js';

/** Rich entries kept as UTF-8 JSON, by default (bytes, roughly). */
export const DEFAULT_ENTRY_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Programmes' rich entries as JSON in UTF-8, kept from one answer to the next, one cache for the guide,
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
 *
 * An entry is kept as its UTF-8 bytes, each in a buffer of its own, so an answer copies it
 * rather than encoding it again: text beyond ASCII (most entries of a French or German guide)
 * is slow to encode, and over HTTP a French guide's searches for "de" took 10–20 % less of the
 * server's CPU (bench/RESULTS.md). An earlier try kept them as slices of Node's shared pool
 * (`Buffer.from`) and PostgreSQL's searches lost, never explained (perhaps a small slice keeps
 * its whole slab alive; 2026-11-28, bench/RESULTS.md); this one measured no loss there.
 */
export function createEntryCache(maxBytes = DEFAULT_ENTRY_CACHE_BYTES) {
  const entries = new Map<string, Buffer>();
  let bytes = 0;
  const keyOf = (p: ProgrammeVersion) =>
    `${p.id}:${p.updatedAt}:${p.sourceFileId}:${p.needsReview ? 1 : 0}`;
  /** The entry kept under `key`, made the most recently used. */
  const kept = (key: string) => {
    const entry = entries.get(key);
    if (entry !== undefined) {
      entries.delete(key);
      entries.set(key, entry);
    }
    return entry;
  };
  return {
    /** The JSON of `p`'s rich entry, as UTF-8. */
    json(p: StoredProgramme): Buffer {
      const key = keyOf(p.programme);
      let entry = kept(key);
      if (entry !== undefined) return entry;
      const text = JSON.stringify(richProgrammeOf(p.channelId, p.programme, p.details));
      // A buffer of its own, not a slice of Node's shared pool that it would keep alive.
      entry = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      entry.write(text);
      entries.set(key, entry);
      bytes += key.length + entry.length;
      for (const [oldKey, victim] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(oldKey);
        bytes -= oldKey.length + victim.length;
      }
      return entry;
    },
    /** The JSON of the rich entry of this version of a programme (UTF-8), when it is kept. */
    kept: (version: ProgrammeVersion): Buffer | undefined => kept(keyOf(version)),
    /** Whether `p`'s entry is kept (for tests). */
    has: (p: StoredProgramme) => entries.has(keyOf(p.programme)),
    /** Entries and bytes held now (for tests). */
    get size() {
      return { entries: entries.size, bytes };
    },
  };
}

export type EntryCache = ReturnType<typeof createEntryCache>;
