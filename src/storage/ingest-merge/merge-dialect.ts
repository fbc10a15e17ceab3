import type { StagedTable, StagedTableNames } from './staged-tables.js';

/**
 * What differs between the engines in the merge's SQL, and only that: merge-steps.ts writes
 * the statements once from these pieces. One implementation per engine, beside its session
 * (sqlite/sqlite-merge-dialect.ts, postgres/postgres-merge-dialect.ts).
 */
export interface MergeDialect {
  /**
   * Names for one session's staged tables. SQLite needs new ones per session (sessions may
   * share a connection); PostgreSQL's live in the session's own transaction.
   */
  stagedTableNames(): StagedTableNames;
  /** The DDL of one staged table. */
  createStagedTable(name: string, table: StagedTable): string;
  /** The placeholder of a statement's `n`th parameter (from 1). */
  placeholder(n: number): string;
  /** `a` differs from `b`, NULL being equal to NULL. */
  isDistinct(a: string, b: string): string;
  /** `a` equals `b`, NULL being equal to NULL. */
  isNotDistinct(a: string, b: string): string;
  /**
   * The join keyword that keeps its left side (the file's channels or rows) as the outer loop,
   * probing the stored programmes' (channel, start) index: SQLite has no statistics on the
   * staged tables and would otherwise scan every stored programme.
   */
  readonly outerLoopJoin: string;
  /** `value` is not among the values of `column` in `table` (the collapse's losers). */
  notIn(value: string, table: string, column: string): string;
  /**
   * True when the planner answers a NULL-safe equality (isNotDistinct) from an index, so a
   * staged row finds its stored slot, start parsed or not, in one statement; otherwise one
   * statement per unique index of `programmes`.
   */
  readonly indexesNullSafeEquality: boolean;
  /**
   * True when one upsert may name several conflict targets (one ON CONFLICT clause per unique
   * index of `programmes`); otherwise one upsert per index, over the rows of that index.
   */
  readonly severalConflictTargets: boolean;
  /** A conflict target naming `columns` as the unique index declares them. */
  conflictTarget(columns: readonly string[]): string;
  /**
   * True when the stored programmes a file no longer has are removed by one statement per
   * unique index (each one index range per channel); otherwise by one statement for both.
   */
  readonly removePerIndex: boolean;
  /**
   * Deletes the stored programmes `p` joined with the file's channels `s` (`spans`) on `on`
   * and matching `where`.
   */
  deleteJoined(spans: string, on: string, where: string): string;
  /** FROM and WHERE of the programmes `p` that deleteJoined deletes, for a SELECT of them. */
  joinedRows(spans: string, on: string, where: string): string;
  /**
   * Run before the staged programmes are joined with stored ones (only when the file replaces
   * stored programmes): statistics for the planner, or null.
   */
  analyseStaged(programmes: string): string | null;
  /**
   * Run before the programmes a file drops are removed: an index on the staged ids, which the
   * removal checks one by one, or null.
   */
  indexStagedIds(programmes: string): string | null;
  /**
   * Run once the file's distinct texts (`fileTexts`) have their ids, before each staged
   * programme finds its text's id there by its words: an index on the words (SQLite probes it
   * per row) or statistics (PostgreSQL then hashes the small table; without them it expects
   * each text to match many rows and sorts both sides instead).
   */
  prepareFileTexts(fileTexts: string): string;
  /**
   * The condition that the stored text `stored` (of `search_texts`) has the words `words`, by
   * the index that finds it: its words (SQLite's unique index), or a hash of them and then the
   * words (PostgreSQL, whose B-tree keys hold at most about 2.7 KB; a long description is more).
   */
  sameSearchText(stored: string, words: string): string;
  /**
   * Whether a programme's row keeps its search words (`search_words`) beside its text's id
   * (`search_text`): PostgreSQL's searches that walk programmes in result order test the words
   * on the row they read, SQLite's read them from `search_texts` by the id. Where they are not
   * kept the merge neither writes nor compares them (they follow from the content anyway).
   */
  readonly storesSearchWords: boolean;
  /**
   * The order in which a file's programmes go into a catalogue that holds others (when its
   * late indexes are not dropped), as an ORDER BY of the staged rows `f`, or null for the
   * file's order.
   */
  readonly insertOrder: string | null;
  /** Deletes the programmes that started before the parameter `before`. */
  prune(before: string): string;
  /** FROM and WHERE of the programmes `p` that prune deletes, for a SELECT of them. */
  prunedRows(before: string): string;
  /**
   * Run first by a merge: what makes the change log's numbers follow the order in which merges
   * commit (a lock held until the end of the transaction), or null where merges take turns
   * anyway (SQLite: one writer at a time).
   */
  readonly changesInCommitOrder: string | null;
}
