import { searchTextOf } from '../domain/programme-search.js';

/** Lookups whose hits decide whether keeping texts pays (see SearchTextMemo). */
const SAMPLE_LOOKUPS = 2_048;
/** Lists made without a lookup once a sample found too few kept. */
const SKIPPED_LISTS = 16_384;

/**
 * Joins a programme's searched texts (searchedTextsOf) into the one value a staged row carries
 * to the thread that makes their search text (SearchTextMemo). U+0000 is no part of a word and
 * folds with nothing beside it, so the joined text has the words of the texts one after the
 * other and its search text is theirs (a property test in domain/ checks it): it is made
 * without splitting them again.
 */
export function joinSearchedTexts(texts: readonly string[]): string {
  return texts.join('\u0000');
}

/**
 * The search texts an ingest has made, by the searched texts they were made from, joined
 * (joinSearchedTexts): a guide repeats its titles and descriptions (98,098 programmes, 11,309
 * distinct lists of texts in the 30 MB corpus guide), and making a search text (lower case,
 * words, each once) was a quarter of the parser's thread (`node --cpu-prof bench/ingest.mjs
 * --child none FILE`). Used in the thread that writes the staged rows, beside the parser.
 * Bounded: emptied when full, which keeps the texts of the channels being read. 2,000 lists
 * found 86 % of the 92 MB guide's programmes kept (10,000: 88 %, for 45 MB more peak RSS).
 *
 * A lookup costs a hash of the texts, about half of making the search text: in a guide whose
 * texts seldom repeat (generated ones, each description new) keeping them cost 0.15 to 0.35 s
 * of 5.9 s for 125 MB and found nothing, while without them the corpus guide took 0.4 s longer
 * (`node bench/ingest.mjs --child none FILE`, bench/INGEST.md). So when fewer than a third of a
 * sample's lookups find their list, the next lists are made without one, then it samples again.
 */
export class SearchTextMemo {
  private readonly kept = new Map<string, string>();
  private lookups = 0;
  private found = 0;
  private skipping = 0;

  constructor(private readonly capacity = 2_000) {}

  /** searchTextOf of the texts `joined` holds, made once per distinct list while it is kept. */
  textOf(joined: string): string {
    if (this.skipping > 0) {
      this.skipping--;
      return searchTextOf([joined]);
    }
    let text = this.kept.get(joined);
    if (text === undefined) {
      text = searchTextOf([joined]);
      if (this.kept.size >= this.capacity) this.kept.clear();
      this.kept.set(joined, text);
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
