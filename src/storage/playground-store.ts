import type { Channel } from '../domain/channel.js';

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
