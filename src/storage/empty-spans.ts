import type { ProgrammeSearch } from './catalogue-reader.js';

/**
 * Spans of start times (ms, [from, to)) where a search is known to match no programme, learnt
 * from the walks of one catalogue version (searchSpans): a later walk from inside one starts at
 * its end instead of reading its programmes again. Spans that overlap or touch are merged;
 * beyond `maxSpans`, all are forgotten.
 */
export function createEmptySpans(maxSpans: number) {
  // Disjoint, in order: froms[i] < tos[i] < froms[i + 1].
  let froms: number[] = [];
  let tos: number[] = [];

  /** The index of the last span starting at or before `at`, or -1. */
  const lastFrom = (at: number): number => {
    let low = 0;
    let high = froms.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if ((froms[mid] ?? Infinity) <= at) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    return found;
  };

  return {
    /** Where a walk from `at` may start: the end of the span holding `at`, else `at`. */
    skip(at: number): number {
      const i = lastFrom(at);
      const to = tos[i];
      return i >= 0 && to !== undefined && at < to ? to : at;
    },
    /** No programme of the search starts in [from, to). */
    learn(from: number, to: number): void {
      if (!(from < to)) return;
      // The spans it overlaps or touches: from the last starting at or before `from` (if it
      // reaches `from`) to the last starting at or before `to`.
      let first = lastFrom(from);
      if (first < 0 || (tos[first] ?? -Infinity) < from) first += 1;
      const last = lastFrom(to);
      if (first <= last) {
        from = Math.min(from, froms[first] ?? from);
        to = Math.max(to, tos[last] ?? to);
      }
      const removed = Math.max(0, last - first + 1);
      froms.splice(first, removed, from);
      tos.splice(first, removed, to);
      if (froms.length > maxSpans) {
        froms = [];
        tos = [];
      }
    },
    get size(): number {
      return froms.length;
    },
    /**
     * Whether the latest walk of the search filled its page: a walk from a span's end then
     * finds its page there too, as a rule (PostgreSQL sends it in a batch, catalogue-reader.ts).
     */
    lastWalkFilled: false,
  };
}

export type EmptySpans = ReturnType<typeof createEmptySpans>;

/** Spans kept at most for one search, and searches with spans kept. */
const MAX_SPANS = 4_096;
const MAX_KEPT_SEARCHES = 1_024;

/**
 * The empty spans of each search (its words, country and channels) for one catalogue version,
 * which the caller clears when the version moves. docs/catalogue.md, "The search index".
 */
export function createSearchSpans() {
  const kept = new Map<string, EmptySpans>();
  return {
    of(search: ProgrammeSearch): EmptySpans {
      const { terms, country, channels } = search;
      const key = JSON.stringify([terms.words, terms.prefix, country, channels]);
      let spans = kept.get(key);
      if (spans === undefined) {
        if (kept.size >= MAX_KEPT_SEARCHES) kept.clear();
        spans = createEmptySpans(MAX_SPANS);
        kept.set(key, spans);
      }
      return spans;
    },
    clear(): void {
      kept.clear();
    },
  };
}

/**
 * What a walk's rows (their starts, in result order; from `from` unless null) show to have no
 * match: the start times before its first row, and between each two of its rows. A walk reads
 * every programme in between (in the search's index, of its filters), so none of them matches.
 */
export function learnEmptySpans(
  spans: EmptySpans,
  from: number | null,
  starts: Iterable<number>,
): void {
  let previous = from === null ? null : from - 1;
  for (const start of starts) {
    if (previous !== null && previous < start) spans.learn(previous + 1, start);
    previous = start;
  }
}
