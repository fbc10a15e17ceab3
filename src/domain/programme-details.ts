import type { XmltvElement } from './xmltv-element.js';

/** A text with its language (`lang` attribute, '' when absent). */
export interface LangText {
  value: string;
  lang: string;
}

/** A value with the system it is given in (`system` attribute, '' when absent). */
export interface SystemValue {
  system: string;
  value: string;
}

/** The episode numbering, 1-based, each number null where the guide leaves it blank. */
export interface EpisodeNumber {
  season: number | null;
  episode: number | null;
  part: number | null;
  seasons: number | null;
  episodes: number | null;
  parts: number | null;
  /** The `system="onscreen"` text, or null. */
  onScreen: string | null;
}

export const CREDIT_ROLES = [
  'director',
  'actor',
  'writer',
  'adapter',
  'producer',
  'composer',
  'editor',
  'presenter',
  'commentator',
  'guest',
] as const;
export type CreditRole = (typeof CREDIT_ROLES)[number];

export interface Credit {
  role: CreditRole;
  name: string;
  /** An actor's `role` attribute, else ''. */
  character: string;
}

export interface PreviouslyShown {
  /** In the API's UTC form when it parses, '' when absent. */
  start: string;
  channel: string;
}

export interface Video {
  colour: boolean | null;
  aspect: string | null;
  quality: string | null;
}

export interface Audio {
  stereo: string | null;
}

export interface Subtitles {
  type: string;
  language: string;
}

/** Everything a `<programme>` says beyond the v1 fields (domain/programme.ts). */
export interface ProgrammeDetails {
  subTitle: string;
  titles: LangText[];
  subTitles: LangText[];
  descs: LangText[];
  episodeNumber: EpisodeNumber | null;
  episodeIds: SystemValue[];
  categories: string[];
  keywords: string[];
  images: string[];
  urls: string[];
  credits: Credit[];
  date: string;
  productionCountries: string[];
  language: string;
  originalLanguage: string;
  lengthSeconds: number | null;
  ratings: SystemValue[];
  starRatings: SystemValue[];
  isNew: boolean;
  premiere: boolean;
  lastChance: boolean;
  previouslyShown: PreviouslyShown | null;
  video: Video | null;
  audio: Audio | null;
  subtitles: Subtitles[];
}

/** The v1 fields a stored details text may share rather than repeat (see encodeDetails). */
export interface V1Texts {
  title: string;
  desc: string;
  /** The v1 categories, before they are joined. */
  categories: readonly string[];
}
