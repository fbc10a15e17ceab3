import type { Channel, CountryCount } from '../domain/channel.js';
import type {
  Programme,
  ProgrammeVersion,
  RichProgramme,
  StoredProgramme,
  TimedProgramme,
} from '../domain/programme.js';
import type { SearchKey, SearchTerms } from '../domain/programme-search.js';

/** A programme search as the store answers it: the route has parsed and resolved it. */
export interface ProgrammeSearch {
  terms: SearchTerms;
  /** Stored upper-case form, or null for every country. */
  country: string | null;
  /** Lower-case channel ids, or null for every channel. */
  channels: readonly string[] | null;
  /** Programmes whose parsed start is in [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  /** Only results after this key (the previous page's last), or null. */
  after: SearchKey | null;
  /** Most results answered. */
  limit: number;
}

/**
 * A programme a search found: its place in the order, its channel, and which version of it was
 * found (`updatedAt` moves whenever any of its data changes, docs/catalogue.md), which is what
 * its rich entry is made from; unless `whole`, the rest is read by `programmesFound` for the
 * entries not kept.
 */
export interface ProgrammeSearchHit {
  key: SearchKey;
  channel: Channel;
  programme: ProgrammeVersion;
  /** The programme whole when the search read it so (a read of the word index), else null. */
  whole: StoredProgramme | null;
}

/** Read side of the channel catalogue, used by the v1 routes. */
export interface CatalogueReader {
  listCountries(): Promise<CountryCount[]>;
  listChannels(country: string): Promise<Channel[]>;
  /** Channels whose folded name contains `needle`, name order, at most `limit`. */
  searchChannels(needle: string, country: string | null, limit: number): Promise<Channel[]>;
  channelExists(id: string): Promise<boolean>;
  /**
   * Every programme of a channel in schedule order: parsed starts ascending, then those whose
   * start does not parse; ties by id. Which of them a request gets is the domain's rule
   * (windowRange in domain/schedule-window.ts).
   */
  listProgrammes(channelId: string): Promise<Programme[]>;
  /** One programme of a channel with everything its guide says, or null when it has no such id. */
  findProgramme(channelId: string, programmeId: string): Promise<RichProgramme | null>;
  /** The channels of these ids that exist, in no particular order. */
  findChannels(ids: readonly string[]): Promise<Channel[]>;
  /**
   * Every programme of these channels that starts before `toMs` and stops after `fromMs`, with
   * a parsed start and stop; per channel in (start, id) order. Channels with none are absent.
   */
  programmesBetween(
    channelIds: readonly string[],
    fromMs: number,
    toMs: number,
  ): Promise<Map<string, TimedProgramme[]>>;
  /** Each channel's first programme starting after `atMs` (parsed start and stop), by (start, id). */
  programmesAfter(
    channelIds: readonly string[],
    atMs: number,
  ): Promise<Map<string, TimedProgramme>>;
  countChannels(): Promise<number>;
  /**
   * The programmes matching a search (every word of its terms a word of the programme's search
   * words, the last also as a prefix of one), in (start, channel name key, id) order: the first
   * `limit` after `after`.
   */
  searchProgrammes(search: ProgrammeSearch): Promise<ProgrammeSearchHit[]>;
  /**
   * The stored programmes of a search's hits, in their order, as stored now: null for one that
   * is gone or is no longer the version its hit names (an ingest came in between).
   */
  programmesFound(hits: readonly ProgrammeSearchHit[]): Promise<(StoredProgramme | null)[]>;
}
