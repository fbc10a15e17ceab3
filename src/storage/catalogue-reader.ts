import type { Channel, CountryCount } from '../domain/channel.js';
import type { Programme, RichProgramme, TimedProgramme } from '../domain/programme.js';

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
}
