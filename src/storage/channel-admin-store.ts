import type { ChannelDetails, ChannelScheduleEnd } from '../domain/channel.js';

/** An operator's fix of a channel; each given field is kept by later ingests. */
export interface ChannelFix {
  name?: string;
  country?: string;
  /** Confirms the channel (its country in particular): clears needsReview. */
  reviewed?: boolean;
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
