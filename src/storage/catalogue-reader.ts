import type { ScheduleWindow } from '../domain/schedule-window.js';
import type { Channel, CountryCount } from '../domain/channel.js';
import type { Programme } from '../domain/programme.js';

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
