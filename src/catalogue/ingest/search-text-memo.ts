import { searchTextOf } from '../../domain/programme-search.js';

/** Lookups whose hits decide whether keeping texts pays (see SearchTextMemo). */
const SAMPLE_LOOKUPS = 2_048;
/** Lists made without a lookup once a sample found too few kept. */
const SKIPPED_LISTS = 16_384;

/**
 * The search texts an ingest has made, by the texts they were made from (searchedTextsOf):
 * a guide repeats its titles and descriptions (98,098 programmes, 11,309 distinct lists of texts
 * in the 30 MB corpus guide), and making a search text (lower case, words, each once) was a
 * quarter of the parser's thread (`node --cpu-prof bench/ingest.mjs --child none FILE`).
 * Bounded: emptied when full, which keeps the texts of the channels being read. 2,000 lists
 * found 86 % of the 92 MB guide's programmes kept (10,000: 88 %, for 45 MB more peak RSS).
 *
 * A lookup costs a join and a hash of the texts, about half of making the search text: in a
 * guide whose texts seldom repeat (generated ones, each description new) keeping them cost 0.15
 * to 0.35 s of 5.9 s for 125 MB and found nothing, while without them the corpus guide took 0.4
 * s longer (`node bench/ingest.mjs --child none FILE`, bench/INGEST.md). So when fewer than a
 * third of a sample's lookups find their list, the next lists are made without one, then it
 * samples again.
 */
export class SearchTextMemo {
  private readonly kept = new Map<string, string>();
  private lookups = 0;
  private found = 0;
  private skipping = 0;

  constructor(private readonly capacity = 2_000) {}

  /** searchTextOf(texts), made once per distinct list while it is kept. */
  textOf(texts: readonly string[]): string {
    if (this.skipping > 0) {
      this.skipping--;
      return searchTextOf(texts);
    }
    // XML text holds no U+0000; and lists that joined alike would have the same words anyway.
    const key = texts.join('\u0000');
    let text = this.kept.get(key);
    if (text === undefined) {
      text = searchTextOf(texts);
      if (this.kept.size >= this.capacity) this.kept.clear();
      this.kept.set(key, text);
    } else {
      this.found++;
    }
    if (++this.lookups === SAMPLE_LOOKUPS) {
      if (this.found * 3 < this.lookups) this.skipping = SKIPPED_LISTS;
      this.lookups = 0;
      this.found = 0;
    }
    return text;
  }

  /** Whether the next list is made without a lookup (for tests). */
  get skips(): boolean {
    return this.skipping > 0;
  }
}
