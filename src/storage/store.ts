import type { MaybeAsync } from '../domain/maybe-async.js';
import type { AccountStore } from './account-store.js';
import type { CatalogueReader } from './catalogue-reader.js';
import type { ChangeLog } from './change-log.js';
import type { CatalogueWriter } from './catalogue-writer.js';
import type { ChannelAdminStore } from './channel-admin-store.js';
import type { FeedStore } from './feed-store.js';
import type { PlaygroundStore } from './playground-store.js';
import type { SignInStore } from './sign-in-store.js';
import type { SourceStore } from './source-store.js';
import type { WebhookStore } from './webhook-store.js';

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

/** The whole persistent state behind one engine. */
export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  readonly catalogue: CatalogueReader;
  /** What each ingest (and each operator's fix of a channel) changed, in order. */
  readonly changes: ChangeLog;
  readonly ingest: CatalogueWriter;
  readonly accounts: AccountStore;
  readonly signIn: SignInStore;
  /**
   * The current data versions, cheap enough for every request: caches of keys and serialised
   * bodies stay valid while the version they were built at is current.
   */
  versions(): MaybeAsync<DataVersions>;
  readonly playground: PlaygroundStore;
  readonly channels: ChannelAdminStore;
  readonly sources: SourceStore;
  /** Guide feeds of accounts, and the catalogue reads they are written from. */
  readonly feeds: FeedStore;
  /** Accounts' webhooks: their delivery state, leases and attempt logs. */
  readonly webhooks: WebhookStore;
  /** Resolves when the storage answers; rejects otherwise (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
