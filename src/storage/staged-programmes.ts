import { programmeSlotKey } from '../domain/programme-id.js';
import { DuplicateIdFilter, type KeyPrefix } from './duplicate-id-filter.js';
import type { ProgrammeRecord } from './catalogue-writer.js';

/** A channel of the file: its starts so far and its latest staged programme. */
export interface ChannelSpan {
  /** Earliest parseable start among the channel's staged programmes (NaN: none parses). */
  earliestMs: number;
  /** Latest parseable start among them (NaN: none parses). */
  latestMs: number;
  /**
   * True while each of the channel's parseable starts came after every one before it (the
   * previous programme repeated aside): its "ordered run", whose slots the filter never sees.
   */
  ordered: boolean;
  /** First and last start of the ordered run, once it has ended (NaN before). */
  runFromMs: number;
  runUntilMs: number;
  /** Start key of the channel's latest staged programme. */
  lastStart: string;
  lastSeq: number;
  /** The filter's hash state of the channel's slot keys' common prefix, once needed. */
  keyPrefix: KeyPrefix | null;
  /** True once one of its programmes had a parsed start and no stop (an open one). */
  open: boolean;
  /** True once an open programme of it was written without the stop the merge would give it. */
  unsettled: boolean;
  /** Its latest programme when open, not written yet: it ends where the next one starts. */
  held: { seq: number; programme: ProgrammeRecord } | null;
}

/** Writes a staged programme as the row `seq` (in any order: a row is found by its seq). */
export type WriteProgramme = (seq: number, programme: ProgrammeRecord) => void;

/**
 * What an ingest session needs to know of the file as a whole, gathered as its programmes are
 * staged, so the merge need not work it out from every staged row after the last one: how
 * many there are, each channel's earliest start (from which the file replaces the stored
 * programmes), and the rows whose id may repeat an earlier one.
 *
 * A programme's id repeats exactly when its slot key (programmeSlotKey: channel and start key)
 * does (two slots whose 63-bit ids collide aside, about one chance in two million for a file of
 * 3 million programmes), and a parsed start's key is its UTC form, so equal parsed starts are
 * equal instants. Guides list each channel's programmes in start order, so most rows need no
 * lookup at all: a start later than every earlier start of its channel is new (no lookup cost
 * 0.1–0.2 s of the parser thread's 1.5 s for the 92 MB guide of bench/INGEST.md). Only once a
 * channel goes back in time do its rows go through DuplicateIdFilter, keyed by the instant
 * (cheaper to hash than the text); a row within the span of the channel's ordered run is
 * flagged too, since the filter never saw that run. A channel listed backwards has its rows
 * all before that run, and gets no more flags than the filter's. Starts that do not parse go
 * through the filter by their text, which no parsed start's key equals.
 *
 * A repeat of the channel's previous programme (how guides repeat a programme) is known here
 * with the row it repeats; for any other flagged row the earlier rows of its id are not known,
 * and `adjacent` turns false. Flagged rows are checked exactly after the last row.
 */
export class StagedProgrammes {
  /** Rows staged; a row's `seq` is its number, from 1. */
  count = 0;
  /** Rows flagged. */
  flagged = 0;
  /** True while every flagged row repeated its channel's previous programme. */
  adjacent = true;
  readonly spans = new Map<string, ChannelSpan>();
  private readonly seen = new DuplicateIdFilter();

  /**
   * Counts a staged programme and gives it its seq; `candidate` is called for a flagged row and,
   * when known, for the row it repeats, and `write` for each row to stage now: this one, and the
   * channel's open programme held before it.
   *
   * A programme with a parsed start and no stop (open) ends where the next programme of its
   * channel starts (the merge's rule: the next later start among those the collapse keeps,
   * openStopSteps). While a channel is in start order, that is the next parsed start of the
   * channel in the file, unless it is the same start (then the open one is collapsed away): so
   * an open programme is held until that row comes and written with its stop, which spares
   * the merge's step over every staged row (1.4 s of a 9 s ingest of the bench guide with its
   * stops taken out, bench/INGEST.md). What is not settled so is left to that step
   * (needsOpenStopStep): an open row of a channel that later goes back in time, or written at
   * once as a possible repeat. A row a candidate names is always written before the candidate
   * (the held row goes out before the next row of its channel is counted, and a flagged row is
   * never held). At most one row per channel is held; releaseHeld writes them after the last.
   */
  add(p: ProgrammeRecord, candidate: (seq: number) => void, write: WriteProgramme): void {
    const seq = ++this.count;
    const open = p.stop === '' && p.startMs !== null;
    let span = this.spans.get(p.channelId);
    if (span === undefined) {
      span = {
        earliestMs: Number.NaN,
        latestMs: Number.NaN,
        ordered: true,
        runFromMs: Number.NaN,
        runUntilMs: Number.NaN,
        lastStart: '',
        lastSeq: 0,
        keyPrefix: null,
        open: false,
        unsettled: false,
        held: null,
      };
      this.spans.set(p.channelId, span);
    }
    const ms = p.startMs;
    // The held row, while its channel is in start order: ended by this start when later (then
    // the channel stays in order), written as it is when the same slot (it is collapsed away) or
    // an earlier one (the channel leaves start order: the merge's step sets its stop). Still
    // held past a start that does not parse, which no stop is taken from.
    const held = span.held;
    if (held !== null && ms !== null) {
      span.held = null;
      const start = held.programme.startMs;
      write(
        held.seq,
        start !== null && ms > start ? { ...held.programme, stopMs: ms } : held.programme,
      );
    }
    let flagged: boolean;
    if (ms === null) {
      flagged = this.seen.addAfter(this.keyPrefix(span, p.channelId), p.start);
    } else {
      if (span.ordered && !(ms <= span.latestMs)) {
        flagged = false;
      } else if (span.ordered && p.start === span.lastStart) {
        // The previous programme again: the run stays ordered, with the same slots.
        flagged = true;
      } else {
        if (span.ordered) {
          span.ordered = false;
          span.runFromMs = span.earliestMs;
          span.runUntilMs = span.latestMs;
        }
        flagged =
          this.seen.addNumberAfter(this.keyPrefix(span, p.channelId), ms) ||
          (ms >= span.runFromMs && ms <= span.runUntilMs);
      }
      if (!(ms >= span.earliestMs)) span.earliestMs = ms;
      if (!(ms <= span.latestMs)) span.latestMs = ms;
    }
    if (flagged) {
      this.flagged++;
      if (span.lastSeq > 0 && span.lastStart === p.start) candidate(span.lastSeq);
      else this.adjacent = false;
      candidate(seq);
    }
    span.lastStart = p.start;
    span.lastSeq = seq;
    if (open) {
      span.open = true;
      if (!flagged && span.ordered) {
        span.held = { seq, programme: p };
        return;
      }
      span.unsettled = true;
    }
    write(seq, p);
  }

  /** Writes the rows still held: each its channel's last open programme, which keeps no stop. */
  releaseHeld(write: WriteProgramme): void {
    for (const span of this.spans.values()) {
      if (span.held === null) continue;
      write(span.held.seq, span.held.programme);
      span.held = null;
    }
  }

  /**
   * Whether the merge's step must set the stops of open programmes (openStopSteps): some were
   * not settled as rows went by (see add). After releaseHeld.
   */
  get needsOpenStopStep(): boolean {
    for (const span of this.spans.values()) if (needsOpenStops(span)) return true;
    return false;
  }

  private keyPrefix(span: ChannelSpan, channelId: string): KeyPrefix {
    // A slot key is this prefix and the start key (programmeSlotKey).
    span.keyPrefix ??= this.seen.prefix(programmeSlotKey(channelId, ''));
    return span.keyPrefix;
  }
}

/**
 * Whether the merge's step must set the stops of the channel's programmes without one (see
 * StagedProgrammes.add): only such channels are sorted by it.
 */
export function needsOpenStops(span: ChannelSpan): boolean {
  return span.open && (span.unsettled || !span.ordered);
}
