/**
 * Spans of start times (ms, [from, to)) where a search is known to match no programme, learnt
 * from the walks of one catalogue version (sqlite/programme-search.ts): a later walk from inside
 * one starts at its end instead of reading its programmes again. Spans that overlap or touch
 * are merged; beyond `maxSpans`, all are forgotten.
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
  };
}

export type EmptySpans = ReturnType<typeof createEmptySpans>;
