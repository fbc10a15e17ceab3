import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StagedProgrammes, needsOpenStops } from './staged-programmes.js';
import type { ProgrammeRecord } from './catalogue-writer.js';

const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 10, 20);

/** A row at hour `hour` of `channel`; a null hour is a start that does not parse. */
function row(channel: string, hour: number | null): ProgrammeRecord {
  const startMs = hour === null ? null : BASE + hour * HOUR;
  return {
    channelId: channel,
    // As for a real row: a parsed start's key is one text per instant, any other its raw text.
    start: startMs === null ? `not a time ${channel}` : `utc ${startMs}`,
    stop: '',
    startMs,
    stopMs: null,
    title: 'A programme',
    desc: '',
    category: '',
    details: '',
    searchedTexts: ['A programme'],
    needsReview: false,
    line: 1,
  };
}

/** Stages the rows; the seqs passed to `candidate`, in order. */
function stage(staged: StagedProgrammes, rows: readonly ProgrammeRecord[]): number[] {
  const candidates: number[] = [];
  for (const r of rows)
    staged.add(
      r,
      (seq) => candidates.push(seq),
      () => {},
    );
  return candidates;
}

describe('StagedProgrammes', () => {
  it('flags nothing in a guide whose channels are each in start order', () => {
    const staged = new StagedProgrammes();
    // Channels interleaved, as in a guide sorted by time, with gaps and unequal steps.
    const rows = [];
    for (let hour = 0; hour < 500; hour++) {
      rows.push(row('a', hour));
      if (hour % 3 === 0) rows.push(row('b', hour * 2 + 1));
    }
    expect(stage(staged, rows)).toEqual([]);
    expect(staged.flagged).toBe(0);
    expect(staged.count).toBe(rows.length);
    expect(staged.spans.get('a')?.earliestMs).toBe(BASE);
    expect(staged.spans.get('b')?.earliestMs).toBe(BASE + HOUR);
  });

  it('flags the previous programme repeated, with the row it repeats', () => {
    const staged = new StagedProgrammes();
    const rows = [row('a', 0), row('a', 1), row('a', 1), row('a', 1), row('a', 2), row('a', 3)];
    expect(stage(staged, rows)).toEqual([2, 3, 3, 4]);
    expect(staged.flagged).toBe(2);
    expect(staged.adjacent).toBe(true);
    // A repeat adds no slot: the channel is still in order, and later rows need no lookup.
    expect(staged.spans.get('a')?.ordered).toBe(true);
  });

  it('flags a repeat of an earlier slot that is not the previous one', () => {
    const staged = new StagedProgrammes();
    const rows = [row('a', 0), row('a', 1), row('a', 2), row('a', 1), row('a', 5)];
    expect(stage(staged, rows)).toEqual([4]);
    expect(staged.adjacent).toBe(false);
  });

  it('checks the rows of a channel that goes back in time', () => {
    const staged = new StagedProgrammes();
    // Back to hour 1 (new: flagged, as it comes before the end of the ordered run), then on
    // past that run: later starts are new, and a repeat among them is flagged.
    const rows = [row('a', 0), row('a', 2), row('a', 1), row('a', 3), row('a', 4), row('a', 3)];
    expect(stage(staged, rows)).toEqual([3, 6]);
    expect(staged.spans.get('a')?.earliestMs).toBe(BASE);
  });

  it('flags no row of a channel listed backwards', () => {
    const staged = new StagedProgrammes();
    const rows = Array.from({ length: 300 }, (_, i) => row('a', 300 - i));
    expect(stage(staged, rows)).toEqual([]);
    expect(staged.spans.get('a')?.earliestMs).toBe(BASE + HOUR);
  });

  it('tells starts that do not parse apart by their text', () => {
    const staged = new StagedProgrammes();
    const rows = [row('a', null), row('b', null), row('a', 0), row('a', null)];
    expect(stage(staged, rows)).toEqual([4]);
    expect(staged.adjacent).toBe(false);
    expect(staged.spans.get('b')?.earliestMs).toBeNaN();
  });

  it('flags every repeat, with all the rows of its slot while `adjacent` holds', () => {
    const rows = fc.array(
      fc.record({
        channel: fc.constantFrom('a', 'b', 'c'),
        hour: fc.option(fc.integer({ min: 0, max: 12 }), { freq: 8 }),
      }),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(rows, (drawn) => {
        const staged = new StagedProgrammes();
        const records = drawn.map((d) => row(d.channel, d.hour));
        const candidates = new Set(stage(staged, records));
        const seqsOfSlot = new Map<string, number[]>();
        records.forEach((r, i) => {
          const slot = `${r.channelId} ${r.start}`;
          seqsOfSlot.set(slot, [...(seqsOfSlot.get(slot) ?? []), i + 1]);
        });
        for (const seqs of seqsOfSlot.values()) {
          if (seqs.length < 2) continue;
          // Every row after the first of its slot is a candidate...
          for (const seq of seqs.slice(1)) expect(candidates.has(seq)).toBe(true);
          // ...and, when the collapse may rely on the candidates alone, the first one too.
          if (staged.adjacent) expect(candidates.has(seqs[0] as number)).toBe(true);
        }
        expect(staged.count).toBe(records.length);
      }),
      { numRuns: 500 },
    );
  });

  it('ends an open programme where the next of its channel starts, or leaves it to the merge', () => {
    // Rows drawn mostly in start order per channel (sometimes back in time or repeated), some
    // with a stop; the merge's rule (openStopSteps): an open programme the collapse keeps ends
    // at the next later start among those it keeps in its channel, or keeps no stop.
    const draws = fc.array(
      fc.record({
        channel: fc.constantFrom('a', 'b', 'c'),
        step: fc.option(fc.integer({ min: -2, max: 3 }), { freq: 10 }),
        open: fc.boolean(),
      }),
      { maxLength: 60 },
    );
    let settledRuns = 0;
    fc.assert(
      fc.property(draws, (drawn) => {
        const hourOf = new Map<string, number>();
        const records = drawn.map((d) => {
          let hour: number | null = null;
          if (d.step !== null) {
            hour = (hourOf.get(d.channel) ?? 0) + d.step;
            hourOf.set(d.channel, hour);
          }
          const r = row(d.channel, hour);
          return d.open || r.startMs === null ? r : { ...r, stop: 'given', stopMs: r.startMs + 1 };
        });
        const staged = new StagedProgrammes();
        const written = new Map<number, ProgrammeRecord>();
        const candidates: number[] = [];
        for (const r of records) {
          staged.add(
            r,
            (seq) => candidates.push(seq),
            (seq, p) => {
              expect(written.has(seq)).toBe(false);
              written.set(seq, p);
            },
          );
          // A candidate's row is written by the time the row that named it is counted.
          for (const seq of candidates) expect(written.has(seq)).toBe(true);
        }
        staged.releaseHeld((seq, p) => written.set(seq, p));
        // Every row written once, as given but for an open one's stop.
        expect([...written.keys()].sort((x, y) => x - y)).toEqual(records.map((_, i) => i + 1));
        records.forEach((r, i) => {
          const w = written.get(i + 1);
          expect({ ...w, stopMs: r.stopMs }).toEqual(r);
          if (r.stop !== '' || r.startMs === null) expect(w?.stopMs).toBe(r.stopMs);
        });
        // Channels the merge's step sorts again are checked there (test/ingest/ingest.test.ts);
        // every other one's open programmes end here.
        const settled = (channel: string) => {
          const span = staged.spans.get(channel);
          return span !== undefined && !needsOpenStops(span);
        };
        expect(staged.needsOpenStopStep).toBe(
          [...staged.spans.keys()].some((channel) => !settled(channel)),
        );
        if (records.some((r) => settled(r.channelId) && r.stop === '' && r.startMs !== null)) {
          settledRuns++;
        }
        // The collapse keeps the last row of each slot.
        const lastOfSlot = new Map<string, number>();
        records.forEach((r, i) => lastOfSlot.set(`${r.channelId} ${r.start}`, i + 1));
        const kept = records
          .map((r, i) => ({ r, seq: i + 1 }))
          .filter(({ r, seq }) => lastOfSlot.get(`${r.channelId} ${r.start}`) === seq);
        for (const { r, seq } of kept) {
          if (r.stop !== '' || r.startMs === null || !settled(r.channelId)) continue;
          const later = kept
            .map((k) => k.r)
            .filter((o) => o.channelId === r.channelId && o.startMs !== null)
            .map((o) => o.startMs as number)
            .filter((ms) => ms > (r.startMs as number));
          expect(written.get(seq)?.stopMs).toBe(later.length === 0 ? null : Math.min(...later));
        }
      }),
      { numRuns: 1000 },
    );
    // Most draws have channels in order: their rows settle themselves, the case checked above.
    expect(settledRuns).toBeGreaterThan(300);
  });
});
