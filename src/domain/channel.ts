/** Channels of the catalogue, as the API and the operator see them. */

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

/** A channel with the end of its schedule, for finding schedules that ran out. */
export interface ChannelScheduleEnd extends ChannelDetails {
  programmes: number;
  /** Latest stop (or start) of its programmes, or null when it has none. */
  latestEndMs: number | null;
}
