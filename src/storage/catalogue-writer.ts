import type { LangText } from '../domain/programme-details.js';
/** A channel as an ingest hands it to the store. */
export interface ChannelRecord {
  id: string;
  xmltvId: string;
  name: string;
  /**
   * Every display-name the guide gives (text and `lang`), in its order, each once (the first is
   * `name` unless the guide gave none): feeds write them all, as media servers match channels
   * by any of them.
   */
  displayNames: readonly LangText[];
  icon: string;
  /** Null when the ingest names no country; the store then keeps an existing channel's. */
  country: string | null;
  /** Country to use for a new channel when `country` is null (inferred or ZZ). */
  fallbackCountry: string;
  /**
   * False when the file has programmes for the channel but no `<channel>` element: `name` is
   * then a placeholder (the xmltv id) used only to create a new channel, never to rename one.
   */
  declared: boolean;
}

/**
 * A programme as an ingest hands it to the store. Its id is `programmeIdFor(channelId, start)`
 * (domain/programme-id.ts), which the store derives: SQLite hashes it in its staging thread,
 * beside the parser rather than on it.
 */
export interface ProgrammeRecord {
  channelId: string;
  start: string;
  stop: string;
  /** Parsed start (epoch ms), or null when the start text does not parse. */
  startMs: number | null;
  stopMs: number | null;
  title: string;
  desc: string;
  category: string;
  /** Everything else the guide says of it, in its stored form ('' when nothing). */
  details: string;
  /**
   * The texts search finds it by (searchedTextsOf in domain/programme-search.ts); the store
   * makes their words (searchTextOf) beside the parser (storage/ingest-merge/made-values.ts).
   */
  searchedTexts: readonly string[];
  needsReview: boolean;
  /** Line of the `<programme>` element in its file, for warnings. */
  line: number;
}

/** The record of one ingest (one file or fetch): the programmes' `sourceFileId`. */
export interface SourceFileRecord {
  id: string;
  /** File path or URL as the operator gave it. */
  source: string;
  country: string | null;
  sizeBytes: number;
  sha256: string;
  ingestedAt: number;
  /** Counts and warnings of the ingest, stored as JSON. */
  summary: unknown;
}

/** How the catalogue changed when an ingest was merged. */
export interface MergeStats {
  channelsAdded: number;
  channelsUpdated: number;
  programmesAdded: number;
  programmesUpdated: number;
  programmesUnchanged: number;
  programmesRemoved: number;
  /** Programmes older than the retention period deleted after the merge. */
  programmesPruned: number;
}

/** One (channel, start) slot that had duplicates in the file, for warnings. */
export interface DuplicateSample {
  channelId: string;
  start: string;
  /** Line of the first programme with this slot, and of the one kept (the last). */
  firstLine: number;
  keptLine: number;
  exactDuplicates: number;
  conflictingDuplicates: number;
}

/** Duplicates and overlaps among an ingest's staged programmes, measured before the merge. */
export interface StagingStats {
  /** Programmes left once same (channel, start) are collapsed, the later in the file winning. */
  programmes: number;
  /** Repeats of a slot identical (stop, title, desc, category, details) to the one they replace. */
  exactDuplicates: number;
  /** Repeats of a slot whose content differs from the one they replace. */
  conflictingDuplicates: number;
  /** (channel, start) slots that had more than one programme. */
  duplicateSlots: number;
  /**
   * Collapsed programmes that start before the previous programme of their channel stops; null
   * when not asked for (the pipeline counts them itself when the file is in start order).
   */
  overlaps: number | null;
  /** The first duplicate slots by line (at most the number asked for). */
  duplicateSamples: DuplicateSample[];
}

export interface AnalyseOptions {
  /** Most duplicate samples to return. */
  maxSamples: number;
  countOverlaps: boolean;
}

export interface CommitOptions {
  /** When set, programmes that started more than this many days before the ingest are pruned. */
  retentionDays?: number | null;
  /** When set, change records written more than this many days before the ingest are pruned. */
  changesRetentionDays?: number | null;
}

/**
 * One ingest in progress. Staged rows are invisible to readers until `commit`, which merges
 * them in one transaction; `abort` discards them and leaves the catalogue as it was.
 */
export interface IngestSession {
  stageChannel(channel: ChannelRecord): void;
  stageProgramme(programme: ProgrammeRecord): void;
  /** Resolves when staging has caught up; awaited between input chunks to bound memory. */
  drain(): Promise<void>;
  /** Counts duplicates (and overlaps if asked) among the staged programmes, before commit. */
  analyse(options: AnalyseOptions): Promise<StagingStats>;
  commit(file: SourceFileRecord, options?: CommitOptions): Promise<MergeStats>;
  abort(): Promise<void>;
}

/** Write side of the catalogue. */
export interface CatalogueWriter {
  beginIngest(): Promise<IngestSession>;
}
