import type { ScheduleWindow } from '../domain/schedule-window.js';

/** A channel as the API shows it. */
export interface Channel {
  id: string;
  name: string;
  icon: string;
  country: string;
  needsReview: boolean;
}

export interface CountryCount {
  country: string;
  channelCount: number;
}

/** A programme as the API shows it. */
export interface Programme {
  id: string;
  start: string;
  stop: string;
  title: string;
  desc: string;
  category: string;
  sourceFileId: string;
  needsReview: boolean;
  updatedAt: string;
}

/** A channel as an ingest hands it to the store. */
export interface ChannelRecord {
  id: string;
  xmltvId: string;
  name: string;
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

/** A programme as an ingest hands it to the store. */
export interface ProgrammeRecord {
  id: string;
  channelId: string;
  start: string;
  stop: string;
  /** Parsed start (epoch ms), or null when the start text does not parse. */
  startMs: number | null;
  stopMs: number | null;
  title: string;
  desc: string;
  category: string;
  needsReview: boolean;
  /** Line of the `<programme>` element in its file, for warnings. */
  line: number;
}

/** Read side of the channel catalogue, used by the v1 routes. */
export interface CatalogueReader {
  listCountries(): Promise<CountryCount[]>;
  listChannels(country: string): Promise<Channel[]>;
  /** Channels whose folded name contains `needle`, name order, at most `limit`. */
  searchChannels(needle: string, country: string | null, limit: number): Promise<Channel[]>;
  channelExists(id: string): Promise<boolean>;
  listProgrammes(channelId: string, window: ScheduleWindow): Promise<Programme[]>;
  countChannels(): Promise<number>;
}

export interface Account {
  id: string;
  email: string;
  verifiedAt: number | null;
  accessUntil: number | null;
  /** Per-account requests per second; null means the default. */
  rateLimit: number | null;
  disabled: boolean;
  createdAt: number;
}

export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  lastFour: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** What the auth check needs for one request, found by the key's hash. */
export interface KeyOwner {
  keyId: string;
  revoked: boolean;
  account: Account;
}

export interface NewAccount {
  email: string;
  verifiedAt: number | null;
  accessUntil: number | null;
  rateLimit: number | null;
}

export type AccountChanges = Partial<
  Pick<Account, 'verifiedAt' | 'accessUntil' | 'rateLimit' | 'disabled'>
>;

export interface NewApiKey {
  accountId: string;
  name: string;
  keyHash: string;
  prefix: string;
  lastFour: string;
}

/** Accounts and their API keys. */
export interface AccountStore {
  createAccount(account: NewAccount, nowMs: number): Promise<Account>;
  findAccountByEmail(email: string): Promise<Account | null>;
  updateAccount(id: string, changes: AccountChanges, nowMs: number): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  createApiKey(key: NewApiKey, nowMs: number): Promise<ApiKey>;
  listApiKeys(accountId: string): Promise<ApiKey[]>;
  /** Marks a key revoked; returns null when no key has that id. */
  revokeApiKey(id: string, nowMs: number): Promise<ApiKey | null>;
  findKeyOwner(keyHash: string): Promise<KeyOwner | null>;
}

/** The whole persistent state behind one engine. */
export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  readonly catalogue: CatalogueReader;
  readonly ingest: CatalogueWriter;
  readonly accounts: AccountStore;
  /** Resolves when the storage answers; rejects otherwise (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
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
  /** Repeats of a slot identical (stop, title, desc, category) to the one they replace. */
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
