import { describe, expect, it } from 'vitest';
import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
import type { ChannelRecord, ProgrammeRecord } from '../catalogue-writer.js';
import { joinSearchedTexts } from '../search-text-memo.js';
import {
  STAGED_TABLES,
  stagedInsert,
  valueKind,
  writeStagedChannel,
  writeStagedProgramme,
  writeStagedSpan,
  type StagedRowSink,
  type StagedTable,
  type StagedValueKind,
} from './staged-tables.js';

/** Records what a writer sends, call by call. */
function recordingSink(): StagedRowSink & { calls: [StagedValueKind, unknown][] } {
  const calls: [StagedValueKind, unknown][] = [];
  return {
    calls,
    text: (value) => void calls.push(['text', value]),
    nullableText: (value) => void calls.push(['nullable-text', value]),
    number: (value) => void calls.push(['number', value]),
  };
}

/** The writer's values by the column names of the table's insert, checking their kinds. */
function written(
  table: StagedTable,
  write: (sink: StagedRowSink) => void,
): Record<string, unknown> {
  const sink = recordingSink();
  write(sink);
  const columns = stagedInsert(table).written;
  expect(sink.calls.map(([kind]) => kind)).toEqual(columns.map(valueKind));
  return Object.fromEntries(columns.map((c, i) => [c.name, sink.calls[i]?.[1]]));
}

const programme: ProgrammeRecord = {
  channelId: 'channel-1',
  start: '20260301060000 +0000',
  stop: '20260301070000 +0000',
  startMs: Date.UTC(2026, 2, 1, 6),
  stopMs: Date.UTC(2026, 2, 1, 7),
  title: 'News',
  desc: 'The day',
  category: 'News, Current affairs',
  details: '{"s":"Part one"}',
  searchedTexts: ['News', 'Part one', 'The day', 'Current affairs'],
  needsReview: true,
  line: 42,
};

describe('the staged tables', () => {
  it('get each programme value in the column the list names, in its order and kind', () => {
    expect(written(STAGED_TABLES.programmes, (s) => writeStagedProgramme(s, 7, programme))).toEqual(
      {
        seq: 7,
        channel_id: 'channel-1',
        start: '20260301060000 +0000',
        stop: '20260301070000 +0000',
        start_ms: programme.startMs,
        stop_ms: programme.stopMs,
        title: 'News',
        description: 'The day',
        category: 'News, Current affairs',
        details: '{"s":"Part one"}',
        // The searched texts, joined: the store makes their words (made-values.ts).
        search_words: joinSearchedTexts(['News', 'Part one', 'The day', 'Current affairs']),
        needs_review: 1,
        line: 42,
      },
    );
    const unparsed = { ...programme, startMs: null, stopMs: null, needsReview: false };
    expect(written(STAGED_TABLES.programmes, (s) => writeStagedProgramme(s, 1, unparsed))).toEqual(
      expect.objectContaining({ start_ms: null, stop_ms: null, needs_review: 0 }),
    );
  });

  it('get each channel value in its column, with the name’s sort and search forms', () => {
    const channel: ChannelRecord = {
      id: 'channel-1',
      xmltvId: 'one.uk',
      name: 'Élan TV',
      displayNames: [
        { value: 'Élan TV', lang: 'fr' },
        { value: 'Élan "HD"', lang: '' },
      ],
      icon: 'https://img.example/1.png',
      country: null,
      fallbackCountry: 'UK',
      declared: true,
    };
    expect(written(STAGED_TABLES.channels, (s) => writeStagedChannel(s, channel))).toEqual({
      id: 'channel-1',
      xmltv_id: 'one.uk',
      name: 'Élan TV',
      name_key: nameSortKey('Élan TV'),
      name_folded: foldForSearch('Élan TV'),
      display_names: '[{"value":"Élan TV","lang":"fr"},{"value":"Élan \\"HD\\"","lang":""}]',
      icon: 'https://img.example/1.png',
      country: null,
      fallback_country: 'UK',
      declared: 1,
    });
    const named = written(STAGED_TABLES.channels, (s) =>
      writeStagedChannel(s, { ...channel, country: 'IE', declared: false }),
    );
    expect(named).toEqual(expect.objectContaining({ country: 'IE', declared: 0 }));
  });

  it('get a channel’s span, NULL when none of its starts parsed, and whether the merge sets its open stops', () => {
    expect(written(STAGED_TABLES.spans, (s) => writeStagedSpan(s, 'c', 1_000, false))).toEqual({
      channel_id: 'c',
      min_start: 1_000,
      open_stops: 0,
    });
    expect(written(STAGED_TABLES.spans, (s) => writeStagedSpan(s, 'c', Number.NaN, true))).toEqual({
      channel_id: 'c',
      min_start: null,
      open_stops: 1,
    });
  });

  it('take the programme id last, hashed from the channel id and start written', () => {
    const insert = stagedInsert(STAGED_TABLES.programmes);
    expect(insert.columnNames.at(-1)).toBe('id');
    expect(insert.written.map((c) => c.name)).not.toContain('id');
    const [channel, start] = insert.made.programmeIdOf ?? [-1, -1];
    expect([insert.written[channel]?.name, insert.written[start]?.name]).toEqual([
      'channel_id',
      'start',
    ]);
    expect(stagedInsert(STAGED_TABLES.channels).made.programmeIdOf).toBeNull();
  });

  it('make the search text in place of the searched texts written', () => {
    const insert = stagedInsert(STAGED_TABLES.programmes);
    const at = insert.made.searchTextAt ?? -1;
    expect(insert.written[at]?.name).toBe('search_words');
    expect(insert.columnNames[at]).toBe('search_words');
    expect(stagedInsert(STAGED_TABLES.channels).made.searchTextAt).toBeNull();
  });

  it('keep the first of a repeated channel or candidate, and every programme', () => {
    expect(stagedInsert(STAGED_TABLES.channels).tail).toBe('ON CONFLICT (id) DO NOTHING');
    expect(stagedInsert(STAGED_TABLES.candidates).tail).toBe('ON CONFLICT (seq) DO NOTHING');
    expect(stagedInsert(STAGED_TABLES.programmes).tail).toBe('');
  });
});
