import { isDeepStrictEqual } from 'node:util';
import type { StoredProgramme } from '../../src/domain/programme.js';
import type {
  CatalogueReader,
  ProgrammeSearch,
  ProgrammeSearchHit,
} from '../../src/storage/catalogue-reader.js';

/** A search's hit with its programme read whole, as an answer writes it. */
export type WholeHit = Omit<ProgrammeSearchHit, 'programme' | 'whole'> & StoredProgramme;

/**
 * A search's hits with their programmes read after it (`programmesFound`), as the search
 * answers read those whose entries are not kept; a hit whose programme is not found, or whose
 * `whole` differs from it, fails.
 */
export async function searchWhole(
  catalogue: Pick<CatalogueReader, 'searchProgrammes' | 'programmesFound'>,
  search: ProgrammeSearch,
): Promise<WholeHit[]> {
  const hits = await catalogue.searchProgrammes(search);
  const found = await catalogue.programmesFound(hits);
  return hits.map((hit, i) => {
    const stored = found[i];
    if (stored === null || stored === undefined) {
      throw new Error(`the programme of hit ${JSON.stringify(hit)} was not found`);
    }
    // A hit read whole (from the word index) holds what the read after it finds.
    if (hit.whole !== null && !isDeepStrictEqual(hit.whole, stored)) {
      throw new Error(`hit ${JSON.stringify(hit)} is not its programme ${JSON.stringify(stored)}`);
    }
    return { key: hit.key, channel: hit.channel, ...stored };
  });
}
