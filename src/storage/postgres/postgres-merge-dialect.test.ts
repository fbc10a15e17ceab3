import { describe, expect, it } from 'vitest';
import { LATE_INDEX_NAMES, LATE_TEXT_INDEX_NAMES } from '../ingest-merge/merge-steps.js';
import {
  POSTGRES_LATE_INDEX_NAMES,
  postgresLateIndexes,
  postgresLateTextIndexes,
} from './postgres-merge-dialect.js';

const row = (name: string) => ({
  index: name,
  name: `public.${name}`,
  definition: `CREATE INDEX ${name} ON public.programmes USING btree (start_ms)`,
});

describe('postgresLateIndexes', () => {
  it('drops the late indexes in one statement and builds each from its definition', () => {
    // Those out of file order, and the slot indexes, which the plain insert does not need.
    expect(POSTGRES_LATE_INDEX_NAMES).toEqual(
      expect.arrayContaining([...LATE_INDEX_NAMES, 'programmes_by_channel_start']),
    );
    const late = postgresLateIndexes(POSTGRES_LATE_INDEX_NAMES.map(row));
    expect(late?.drop).toBe(
      `DROP INDEX ${POSTGRES_LATE_INDEX_NAMES.map((n) => `public.${n}`).join(', ')}`,
    );
    expect(late?.build.split('\n')).toEqual(
      POSTGRES_LATE_INDEX_NAMES.map((n) => `${row(n).definition};`),
    );
    // Late only into a catalogue holding no programme: 0 then, else beyond any file.
    expect(late?.storedBound).toContain('EXISTS (SELECT 1 FROM programmes)');
  });

  it('offers nothing when the catalogue lacks one of them', () => {
    expect(postgresLateIndexes(POSTGRES_LATE_INDEX_NAMES.slice(1).map(row))).toBeNull();
    expect(postgresLateIndexes([])).toBeNull();
  });

  it('of the search texts: both dropped and built, or nothing when one lacks', () => {
    const late = postgresLateTextIndexes(LATE_TEXT_INDEX_NAMES.map(row));
    expect(late?.drop).toBe(
      `DROP INDEX ${LATE_TEXT_INDEX_NAMES.map((n) => `public.${n}`).join(', ')}`,
    );
    expect(late?.build.split('\n')).toHaveLength(2);
    expect(postgresLateTextIndexes(LATE_TEXT_INDEX_NAMES.slice(1).map(row))).toBeNull();
  });
});
