import { programmeSlotKey } from '../domain/catalogue-ids.js';
import { DuplicateIdFilter, type KeyPrefix } from './duplicate-id-filter.js';
import type { ProgrammeRecord } from './types.js';

/** A channel of the file: its earliest start and its latest staged programme. */
export interface ChannelSpan {
  /** Earliest parseable start among the channel's staged programmes (NaN: none parses). */
  earliestMs: number;
  /** Start key of the channel's latest staged programme. */
  lastStart: string;
  lastSeq: number;
  /** The filter's hash state of the channel's slot keys' common prefix. */
  keyPrefix: KeyPrefix;
}

/**
 * What an ingest session needs to know of the file as a whole, gathered as its programmes are
 * staged, so the merge need not work it out from every staged row after the last one: how
 * many there are, each channel's earliest start (from which the file replaces the stored
 * programmes), and the rows whose id may repeat an earlier one.
 *
 * Repeats are found with DuplicateIdFilter over the rows' slot keys (programmeSlotKey), which
 * repeat exactly when the ids do (two slots whose 63-bit ids collide aside, about one chance
 * in two million for a file of 3 million programmes), so the ids need not be hashed here, on the
 * parser's thread.
 * A repeat of the channel's previous programme (how
 * guides repeat a programme) is known here with the row it repeats; for any other flagged row
 * the earlier rows of its id are not known, and `adjacent` turns false.
 */
export class StagedProgrammes {
  /** Rows staged; a row's `seq` is its number, from 1. */
  count = 0;
  /** Rows the filter flagged. */
  flagged = 0;
  /** True while every flagged row repeated its channel's previous programme. */
  adjacent = true;
  readonly spans = new Map<string, ChannelSpan>();
  private readonly seen = new DuplicateIdFilter();

  /**
   * Counts a staged programme and returns its seq; `candidate` is called (with the slot key)
   * for a flagged row and, when known, for the row it repeats.
   */
  add(p: ProgrammeRecord, candidate: (seq: number, slotKey: string) => void): number {
    const seq = ++this.count;
    let span = this.spans.get(p.channelId);
    if (span === undefined) {
      // A slot key is this prefix and the start key (programmeSlotKey).
      const keyPrefix = this.seen.prefix(programmeSlotKey(p.channelId, ''));
      span = { earliestMs: Number.NaN, lastStart: '', lastSeq: 0, keyPrefix };
      this.spans.set(p.channelId, span);
    }
    if (p.startMs !== null && !(p.startMs >= span.earliestMs)) span.earliestMs = p.startMs;
    if (this.seen.addAfter(span.keyPrefix, p.start)) {
      const key = programmeSlotKey(p.channelId, p.start);
      this.flagged++;
      if (span.lastSeq > 0 && span.lastStart === p.start) candidate(span.lastSeq, key);
      else this.adjacent = false;
      candidate(seq, key);
    }
    span.lastStart = p.start;
    span.lastSeq = seq;
    return seq;
  }
}
