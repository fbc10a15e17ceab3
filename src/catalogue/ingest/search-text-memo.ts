import { searchTextOf } from '../../domain/programme-search.js';

/**
 * The search texts an ingest has made, by the texts they were made from (searchedTextsOf):
 * a guide repeats its titles and descriptions (98,098 programmes, 11,309 distinct lists of texts
 * in the 30 MB corpus guide), and making a search text (lower case, words, each once) was a
 * quarter of the parser's thread (`node --cpu-prof bench/ingest.mjs --child none FILE`).
 * Bounded: emptied when full, which keeps the texts of the channels being read. 2,000 lists
 * found 86 % of the 92 MB guide's programmes kept (10,000: 88 %, for 45 MB more peak RSS).
 */
export class SearchTextMemo {
  private readonly kept = new Map<string, string>();

  constructor(private readonly capacity = 2_000) {}

  /** searchTextOf(texts), made once per distinct list while it is kept. */
  textOf(texts: readonly string[]): string {
    // XML text holds no U+0000; and lists that joined alike would have the same words anyway.
    const key = texts.join('\u0000');
    let text = this.kept.get(key);
    if (text === undefined) {
      text = searchTextOf(texts);
      if (this.kept.size >= this.capacity) this.kept.clear();
      this.kept.set(key, text);
    }
    return text;
  }
}
