import { decodeDetails, type ProgrammeDetails, type V1Texts } from './programme-details.js';

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

/**
 * The v1 texts a programme's stored details share rather than repeat (see encodeDetails): its
 * title, description and categories, the latter recovered from the joined `category`. A split
 * that does not give back the guide's categories (one that holds ", ") makes the details keep
 * them whole, so nothing is lost.
 */
export function storedV1Texts(programme: Pick<Programme, 'title' | 'desc' | 'category'>): V1Texts {
  return {
    title: programme.title,
    desc: programme.desc,
    categories: programme.category === '' ? [] : programme.category.split(', '),
  };
}

/** A programme with everything its guide says of it: the programme detail route's entry. */
export type RichProgramme = Programme & { channelId: string } & ProgrammeDetails;

/** The rich entry of a channel's programme from its stored details text. */
export function richProgrammeOf(
  channelId: string,
  programme: Programme,
  storedDetails: string,
): RichProgramme {
  // Built field by field in the entry's order, not by spreading: V8 makes a spread of this many
  // fields a slow object, 5× the cost of the decode itself (a 500-channel guide grid: 40 µs
  // against 8 µs a programme; bench/http.mjs, cold guide). The guide bodies are written in the
  // order the fields are made (answers/guide-answers.ts).
  const entry: Programme & { channelId: string } = {
    id: programme.id,
    start: programme.start,
    stop: programme.stop,
    title: programme.title,
    desc: programme.desc,
    category: programme.category,
    sourceFileId: programme.sourceFileId,
    needsReview: programme.needsReview,
    updatedAt: programme.updatedAt,
    channelId,
  };
  return Object.assign(entry, decodeDetails(storedDetails, storedV1Texts(programme)));
}

/**
 * What a programme's rich entry is made from (`richProgrammeOf`): a channel's programme and its
 * stored details text, as the guide and search routes read them, so that only the entries
 * answered are made (and those made before are kept: http/answers/entry-cache.ts).
 */
/**
 * What names one version of a stored programme: `updatedAt` moves whenever any of its data
 * changes, and the source file and review flag are part of its entry too.
 */
export type ProgrammeVersion = Pick<Programme, 'id' | 'updatedAt' | 'sourceFileId' | 'needsReview'>;

export interface StoredProgramme {
  channelId: string;
  programme: Programme;
  details: string;
}

/** A stored programme with its parsed times, as the guide routes read them. */
export interface TimedProgramme extends StoredProgramme {
  startMs: number;
  stopMs: number;
  id: string;
}
