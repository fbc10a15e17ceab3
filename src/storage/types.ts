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

/**
 * A programme as an ingest hands it to the store. Its id is `programmeIdFor(channelId, start)`
 * (domain/catalogue-ids.ts), which the store derives: SQLite hashes it in its staging thread,
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

/**
 * Versions of the data the read path caches: each changes whenever a commit (by this process
 * or any other) may have changed what it covers.
 */
export interface DataVersions {
  /** Channels and programmes. */
  readonly catalogue: string;
  /** Accounts and API keys, as far as access depends on them (not key use or usage counts). */
  readonly auth: string;
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

/** Who made a change recorded in the audit trail. */
export type AuditActor = 'operator' | 'account' | 'system';

/** One recorded change to an account (operator CLI, the account holder, or the system). */
export interface AuditEvent {
  id: string;
  accountId: string;
  at: number;
  actor: AuditActor;
  /** What happened, e.g. `account.created`, `access.granted`, `key.revoked`, `email.verified`. */
  action: string;
  /** The values that changed, as plain JSON (never a key secret or a token). */
  details: Record<string, unknown>;
}

export interface NewAuditEvent {
  accountId: string;
  actor: AuditActor;
  action: string;
  details: Record<string, unknown>;
}

/** The moment a key was last seen in use, written in batches off the request path. */
export interface KeyUse {
  keyId: string;
  at: number;
}

/** v1 requests of one account in one clock hour, added up off the request path. */
export interface UsageCount {
  accountId: string;
  /** Start of the hour (epoch ms, a multiple of 3,600,000). */
  hourStart: number;
  requests: number;
  /** Requests answered 429. */
  limited: number;
}

/** Accounts and their API keys. */
export interface AccountStore {
  createAccount(account: NewAccount, nowMs: number): Promise<Account>;
  findAccountById(id: string): Promise<Account | null>;
  findAccountByEmail(email: string): Promise<Account | null>;
  updateAccount(id: string, changes: AccountChanges, nowMs: number): Promise<Account>;
  /**
   * Sets `verifiedAt` to `nowMs` only if the account was never verified (the trial starts at
   * the first verification and never restarts); returns the account as it now is.
   */
  markVerified(id: string, nowMs: number): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  createApiKey(key: NewApiKey, nowMs: number): Promise<ApiKey>;
  findApiKey(id: string): Promise<ApiKey | null>;
  /** An account's keys, oldest first (revoked ones included). */
  listApiKeys(accountId: string): Promise<ApiKey[]>;
  /** Marks a key revoked; returns null when no key has that id. */
  revokeApiKey(id: string, nowMs: number): Promise<ApiKey | null>;
  findKeyOwner(keyHash: string): Promise<KeyOwner | null>;
  /** Records when keys were last used; a later time never goes back to an earlier one. */
  markKeysUsed(uses: readonly KeyUse[]): Promise<void>;
  /** Adds request counts to the per-hour usage of accounts. */
  addUsage(counts: readonly UsageCount[]): Promise<void>;
  /** Sum of an account's usage in the hours starting at or after `sinceMs`. */
  usageSince(accountId: string, sinceMs: number): Promise<{ requests: number; limited: number }>;
  recordAudit(event: NewAuditEvent, nowMs: number): Promise<AuditEvent>;
  /** An account's audit trail, oldest first. */
  listAudit(accountId: string): Promise<AuditEvent[]>;
}

/** What a sign-in link may be used for; a token works only for the purpose it was made for. */
export type LinkPurpose = 'sign-in';

export interface NewSignInLink {
  /** SHA-256 of the token; the token itself is only in the e-mail. */
  tokenHash: string;
  purpose: LinkPurpose;
  email: string;
  expiresAt: number;
}

/** A browser session, found by the hash of the id in its cookie. */
export interface SessionRecord {
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

/** Single-use sign-in links and browser sessions of the account pages. */
export interface SignInStore {
  createLink(link: NewSignInLink, nowMs: number): Promise<void>;
  /** The e-mail of an unused, unexpired link of this purpose, without using it up. */
  findLink(
    tokenHash: string,
    purpose: LinkPurpose,
    nowMs: number,
  ): Promise<{ email: string } | null>;
  /**
   * Uses a link up, atomically: the first call for an unused, unexpired link of this purpose
   * returns its e-mail; every other call returns null.
   */
  consumeLink(
    tokenHash: string,
    purpose: LinkPurpose,
    nowMs: number,
  ): Promise<{ email: string } | null>;
  createSession(
    sessionHash: string,
    accountId: string,
    expiresAt: number,
    nowMs: number,
  ): Promise<void>;
  /** The live session with this hash, or null when unknown or expired. */
  findSession(sessionHash: string, nowMs: number): Promise<SessionRecord | null>;
  deleteSession(sessionHash: string): Promise<void>;
  /** Ends every session of an account ("sign out everywhere"); returns how many ended. */
  deleteAccountSessions(accountId: string): Promise<number>;
  /** Removes expired links and sessions. */
  deleteExpired(nowMs: number): Promise<void>;
}

/**
 * The channels the public playground previews, marked by the operator (`onair playground`).
 * Changes move the catalogue version, so cached playground answers follow them at once.
 */
export interface PlaygroundStore {
  /** Marked channels (only those in the catalogue), by name (case-insensitive) then id. */
  listChannels(): Promise<Channel[]>;
  /** Marks a channel of the catalogue. */
  add(channelId: string, nowMs: number): Promise<'added' | 'already-marked' | 'no-such-channel'>;
  /** Unmarks a channel; false when it was not marked. */
  remove(channelId: string): Promise<boolean>;
}

/** A channel as the operator reviews it: the API's fields and what was fixed by hand. */
export interface ChannelDetails extends Channel {
  xmltvId: string;
  /** The operator set the name; ingests keep it. */
  nameFixed: boolean;
  /** The operator set or confirmed the country; ingests keep it. */
  countryFixed: boolean;
  /** When the operator last reviewed the channel, or null. */
  reviewedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** An operator's fix of a channel; each given field is kept by later ingests. */
export interface ChannelFix {
  name?: string;
  country?: string;
  /** Confirms the channel (its country in particular): clears needsReview. */
  reviewed?: boolean;
}

/** A channel with the end of its schedule, for finding schedules that ran out. */
export interface ChannelScheduleEnd extends ChannelDetails {
  programmes: number;
  /** Latest stop (or start) of its programmes, or null when it has none. */
  latestEndMs: number | null;
}

export interface ChannelListFilter {
  country?: string | null;
  needsReview?: boolean;
}

/** Operator review of the channel catalogue (the CLI's `channels …`). */
export interface ChannelAdminStore {
  /** A channel by its id (UUID) or its XMLTV id. */
  findChannel(idOrXmltvId: string): Promise<ChannelDetails | null>;
  /** Channels by country, then name (case-insensitive), then id. */
  listChannels(filter: ChannelListFilter): Promise<ChannelDetails[]>;
  /** Applies a fix; returns the channel as it now is, or null when there is no such channel. */
  fixChannel(id: string, fix: ChannelFix, nowMs: number): Promise<ChannelDetails | null>;
  /**
   * Channels whose latest programme ends before `beforeMs` (and, with `includeEmpty`, those
   * without programmes), oldest end first.
   */
  listScheduleEnds(
    beforeMs: number,
    filter: { country?: string | null; includeEmpty?: boolean },
  ): Promise<ChannelScheduleEnd[]>;
}

/** How a source's last refresh ended. */
export type RefreshOutcome = 'ingested' | 'not-modified' | 'unchanged' | 'failed';

/** A guide the server fetches and ingests on its own schedule. */
export interface Source {
  id: string;
  /** An http(s) URL or an absolute file path. */
  location: string;
  country: string;
  everyMs: number;
  assumeOffsetMinutes: number;
  createdAt: number;
  /** When the source is next due. */
  nextRunAt: number;
  /** Failed refreshes in a row (0 after a success). */
  failures: number;
  lastAttemptAt: number | null;
  /** Last refresh that succeeded: ingested, or the guide had not changed. */
  lastSuccessAt: number | null;
  /** Last refresh that ingested new content. */
  lastIngestAt: number | null;
  /** HTTP status of the last attempt (null for files, or when no answer came). */
  lastStatus: number | null;
  lastOutcome: RefreshOutcome | null;
  lastError: string | null;
  /** Validators of the content last ingested, sent back for a conditional GET. */
  etag: string | null;
  lastModified: string | null;
  contentSha256: string | null;
  /** The ingest record (programmes' sourceFileId) of the last ingest. */
  sourceFileId: string | null;
  /** Counts of the last ingest. */
  channels: number | null;
  programmes: number | null;
  /** Latest programme end of the last ingest (epoch ms). */
  latestEndMs: number | null;
  /** Who is refreshing the source now, and until when the claim holds without renewal. */
  leaseHolder: string | null;
  leaseUntil: number | null;
}

export interface NewSource {
  location: string;
  country: string;
  everyMs: number;
  assumeOffsetMinutes: number;
}

/** What a finished refresh writes back. */
export type SourceRefreshState = Pick<
  Source,
  | 'nextRunAt'
  | 'failures'
  | 'lastSuccessAt'
  | 'lastIngestAt'
  | 'lastStatus'
  | 'lastOutcome'
  | 'lastError'
  | 'etag'
  | 'lastModified'
  | 'contentSha256'
  | 'sourceFileId'
  | 'channels'
  | 'programmes'
  | 'latestEndMs'
>;

export interface SourceClaim {
  holder: string;
  nowMs: number;
  leaseMs: number;
  /** Claim only if the source is due (a scheduled run); a forced refresh claims any time. */
  onlyIfDue: boolean;
}

/**
 * Guide sources and their refresh leases. A claim is one atomic update, so of any number of
 * processes or instances over one database exactly one refreshes a given source at a time.
 */
export interface SourceStore {
  /** Adds a source due at once; DuplicateSourceError when the location is already a source. */
  addSource(source: NewSource, nowMs: number): Promise<Source>;
  findSource(id: string): Promise<Source | null>;
  /** Every source, oldest first. */
  listSources(): Promise<Source[]>;
  /** Removes a source (not what it ingested); false when there is no such source. */
  removeSource(id: string): Promise<boolean>;
  /**
   * Takes the source's lease when it is free (and, with `onlyIfDue`, the source due), marking
   * the attempt; returns the source as claimed, or null when another holder has it (or it is
   * not due, or gone).
   */
  claimSource(id: string, claim: SourceClaim): Promise<Source | null>;
  /** Extends a lease still held by `holder`; false when it was lost. */
  renewLease(id: string, holder: string, untilMs: number): Promise<boolean>;
  /** Writes a refresh's result and frees the lease, if `holder` still has it. */
  finishRefresh(id: string, holder: string, state: SourceRefreshState): Promise<Source | null>;
}

/** The whole persistent state behind one engine. */
export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  readonly catalogue: CatalogueReader;
  readonly ingest: CatalogueWriter;
  readonly accounts: AccountStore;
  readonly signIn: SignInStore;
  /**
   * The current data versions, cheap enough for every request: caches of keys and serialised
   * bodies stay valid while the version they were built at is current.
   */
  versions(): Promise<DataVersions>;
  readonly playground: PlaygroundStore;
  readonly channels: ChannelAdminStore;
  readonly sources: SourceStore;
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
