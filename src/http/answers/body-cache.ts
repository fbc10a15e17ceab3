/** Bytes of serialised bodies kept in memory by default. */
export const DEFAULT_BODY_CACHE_BYTES = 16 * 1024 * 1024;

import { etagFor, type PreparedBody } from './body-sender.js';

interface Entry extends PreparedBody {
  body: Buffer;
  version: string;
  /** The count of bodies added when the entry last went to the end of the order. */
  movedAt: number;
}

/**
 * Keeps serialised bodies: those of the list routes (countries, channels of a country, search),
 * of the playground, and the joined schedule windows; keyed by route and parameters, valid while the catalogue version they were built at is the current one
 * (which the caller reads for every request, so an ingest anywhere is seen at once), least
 * recently used evicted beyond `maxBytes`. Measured: answering /countries from a GROUP BY on
 * every request took 44 % of the server's CPU.
 *
 * The order of use counts from the last body added: a body used goes to the end of the order
 * once after each body added, not on every use (moving it, a delete and a set of the map, was
 * 2 % of the server's CPU answering `/countries` from here: `perf record` under `node
 * bench/http.mjs`'s load, bench/RESULTS.md). Eviction happens only when a body is added, so it
 * still takes the bodies not used since the one before it first, then those used longest ago.
 */
export function createBodyCache(maxBytes = DEFAULT_BODY_CACHE_BYTES) {
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let added = 0;

  async function made(
    key: string,
    version: string,
    build: () => Promise<string | Buffer> | Buffer,
  ): Promise<Entry> {
    const tag = `${version}:${key}`;
    const built = await build();
    const body = typeof built === 'string' ? Buffer.from(built) : built;
    return { version, body, tag, etag: etagFor(tag), movedAt: -1 };
  }

  return {
    /** The body `get` would keep for `key` at `version`, built now and not kept. */
    made,

    /** Whether a body is kept under `key`, at any version. */
    has: (key: string): boolean => entries.has(key),

    /** The body for `key` when it is kept at catalogue `version`, without building it. */
    peek(key: string, version: string): PreparedBody | undefined {
      const entry = entries.get(key);
      if (entry === undefined || entry.version !== version) return undefined;
      // Most recently used goes last, once after each body added.
      if (entry.movedAt !== added) {
        entries.delete(key);
        entries.set(key, entry);
        entry.movedAt = added;
      }
      return entry;
    },

    /** The body for `key` at catalogue `version`, built by `build` when missing or older. */
    async get(
      key: string,
      version: string,
      build: () => Promise<string | Buffer> | Buffer,
    ): Promise<PreparedBody> {
      let entry = entries.get(key);
      if (entry !== undefined) {
        entries.delete(key);
        bytes -= entry.body.length + key.length;
      }
      if (entry === undefined || entry.version !== version) {
        entry = await made(key, version, build);
        added += 1;
      }
      entries.set(key, entry);
      entry.movedAt = added;
      bytes += entry.body.length + key.length;
      for (const [oldKey, old] of entries) {
        if (bytes <= maxBytes || entries.size === 1) break;
        entries.delete(oldKey);
        bytes -= old.body.length + oldKey.length;
      }
      return entry;
    },
  };
}

export type BodyCache = ReturnType<typeof createBodyCache>;
