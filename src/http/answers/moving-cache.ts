import { sha256Hex } from '../../domain/sha256.js';
import { etagFor, type PreparedBody } from './body-sender.js';

/** Bytes of moving answers kept in memory by default. */
export const DEFAULT_MOVING_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * An answer that moves with the clock (the guide grid and now/next at `now`) as it was built at
 * one instant: which programmes it shows stays the same until `validUntilMs`, and only the
 * instant it names (`from`, `at`) changes before then.
 */
export interface MovingAnswer {
  /** The first instant (ms) at which the programmes shown may differ; exclusive. */
  validUntilMs: number;
  /** The body for an instant (whole seconds) from the one it was built at to `validUntilMs`. */
  render(instantMs: number): Buffer;
  /** Memory it holds, roughly (its serialised parts). */
  bytes: number;
}

interface Entry {
  version: string;
  builtAtMs: number;
  answer: MovingAnswer;
  /** The body of the last instant asked for: one render per second, not per request. */
  lastInstantMs: number;
  last: PreparedBody | null;
  /** Short form of the key for tags: a channel list can make a key of kilobytes. */
  keyHash: string;
}

/**
 * Keeps moving answers by key (route and parameters), each valid at its catalogue version for
 * instants in [built, validUntil): between two programme boundaries a guide or now/next answer
 * is rendered from what was read once, so the clock moving does not mean reading again. The
 * least recently used are evicted beyond `maxBytes`.
 */
export function createMovingCache(maxBytes = DEFAULT_MOVING_CACHE_BYTES) {
  const entries = new Map<string, Entry>();
  /** Builds under way: requests that arrive meanwhile for the same answer wait for it. */
  const building = new Map<string, Promise<MovingAnswer>>();
  let bytes = 0;

  /** Builds the answer for `key` at `instantMs`, or waits for the same build under way. */
  function buildOnce(
    key: string,
    version: string,
    instantMs: number,
    build: (instantMs: number) => Promise<MovingAnswer>,
  ): Promise<MovingAnswer> {
    const job = `${key}\0${version}\0${instantMs}`;
    let pending = building.get(job);
    if (pending === undefined) {
      pending = build(instantMs).finally(() => building.delete(job));
      building.set(job, pending);
    }
    return pending;
  }

  function entryOf(key: string, version: string, instantMs: number, answer: MovingAnswer): Entry {
    return {
      version,
      builtAtMs: instantMs,
      answer,
      lastInstantMs: 0,
      last: null,
      keyHash: sha256Hex(key).slice(0, 16),
    };
  }

  function bodyAt(entry: Entry, instantMs: number): PreparedBody {
    if (entry.last !== null && entry.lastInstantMs === instantMs) return entry.last;
    const tag = `${entry.version}:${entry.keyHash}:${instantMs}`;
    const prepared = {
      body: entry.answer.render(instantMs),
      tag,
      etag: etagFor(tag),
    };
    entry.lastInstantMs = instantMs;
    entry.last = prepared;
    return prepared;
  }

  function usable(entry: Entry | undefined, version: string, instantMs: number): entry is Entry {
    return (
      entry !== undefined &&
      entry.version === version &&
      instantMs >= entry.builtAtMs &&
      instantMs < entry.answer.validUntilMs
    );
  }

  function touch(key: string, entry: Entry): void {
    entries.delete(key);
    entries.set(key, entry);
  }

  return {
    /** The body for `key` at `instantMs`, when one kept at `version` covers it; never builds. */
    peek(key: string, version: string, instantMs: number): PreparedBody | undefined {
      const entry = entries.get(key);
      if (!usable(entry, version, instantMs)) return undefined;
      touch(key, entry);
      return bodyAt(entry, instantMs);
    },

    /** The body for `key` at `instantMs`, built by `build` when none kept covers it. */
    async get(
      key: string,
      version: string,
      instantMs: number,
      build: (instantMs: number) => Promise<MovingAnswer>,
    ): Promise<PreparedBody> {
      const kept = entries.get(key);
      if (usable(kept, version, instantMs)) {
        touch(key, kept);
        return bodyAt(kept, instantMs);
      }
      const answer = await buildOnce(key, version, instantMs, build);
      const entry = entryOf(key, version, instantMs, answer);
      const old = entries.get(key);
      if (old !== undefined) bytes -= old.answer.bytes + key.length;
      entries.delete(key);
      entries.set(key, entry);
      bytes += answer.bytes + key.length;
      for (const [oldKey, victim] of entries) {
        if (bytes <= maxBytes || entries.size === 1) break;
        entries.delete(oldKey);
        bytes -= victim.answer.bytes + oldKey.length;
      }
      return bodyAt(entry, instantMs);
    },

    /** Whether an answer is kept under `key`, at any version or instant. */
    has: (key: string): boolean => entries.has(key),

    /** The body `get` would give for `key` at `instantMs`, built now and not kept. */
    async made(
      key: string,
      version: string,
      instantMs: number,
      build: (instantMs: number) => Promise<MovingAnswer>,
    ): Promise<PreparedBody> {
      const answer = await buildOnce(key, version, instantMs, build);
      return bodyAt(entryOf(key, version, instantMs, answer), instantMs);
    },

    /** Bytes held now (for tests). */
    get bytes() {
      return bytes;
    },
  };
}

export type MovingCache = ReturnType<typeof createMovingCache>;
