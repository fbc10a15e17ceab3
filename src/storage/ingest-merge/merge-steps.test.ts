import { describe, expect, it } from 'vitest';
import { POSTGRES_MERGE } from '../postgres/postgres-merge-dialect.js';
import { SQLITE_MERGE } from '../sqlite/sqlite-merge-dialect.js';
import type { SourceFileRecord } from '../catalogue-writer.js';
import type { MergeDialect } from './merge-dialect.js';
import {
  collapseSteps,
  LATE_INDEX_MIN_ROWS,
  mergeStats,
  mergeStepOptions,
  mergeSteps,
  onlyIfHolds,
  type MergeStep,
  type MergeStepResult,
} from './merge-steps.js';
import { PROGRAMME_COLUMNS } from './staged-tables.js';

const FILE: SourceFileRecord = {
  id: 'file-1',
  source: 'guide.xml',
  country: null,
  sizeBytes: 1,
  sha256: '00',
  ingestedAt: Date.UTC(2026, 2, 1),
  summary: {},
};

const DIALECTS: [string, MergeDialect][] = [
  ['SQLite', SQLITE_MERGE],
  ['PostgreSQL', POSTGRES_MERGE],
];

function steps(d: MergeDialect, prune = true): MergeStep[] {
  return mergeSteps(d, d.stagedTableNames(), FILE, {
    collapsed: true,
    winners: 0,
    pruneBeforeMs: prune ? 0 : null,
    changesBeforeMs: prune ? 0 : null,
    lateIndexes: null,
    lateTextIndexes: null,
  });
}

/** What each step returned, by label: a number is a run's changes, an object a get's row. */
function results(
  list: readonly MergeStep[],
  byLabel: Record<string, number[] | Record<string, unknown>>,
): MergeStepResult[] {
  const seen = new Map<string, number>();
  return list.map((step): MergeStepResult => {
    const nth = seen.get(step.label) ?? 0;
    seen.set(step.label, nth + 1);
    const given = byLabel[step.label];
    if (given === undefined) return { kind: 'skipped' };
    if (Array.isArray(given)) return { kind: 'run', changes: given[nth] ?? 0 };
    return { kind: 'get', row: given };
  });
}

const sqlOf = (list: readonly MergeStep[], label: string) =>
  list.filter((s) => s.label === label).map((s) => s.sql);

describe('the merge steps', () => {
  it('run a step with a condition only when the earlier row says so', () => {
    const list: MergeStep[] = [
      { label: 'plan', kind: 'get', sql: 'SELECT 1' },
      { label: 'insert', kind: 'run', sql: 'x', onlyIf: { label: 'plan', column: 'separate' } },
    ];
    const [, insert] = list;
    if (insert === undefined) throw new Error('no step');
    const after = (row: Record<string, unknown> | undefined): MergeStepResult[] => [
      { kind: 'get', row },
    ];
    expect(onlyIfHolds(insert, list, after({ separate: 1 }))).toBe(true);
    expect(onlyIfHolds(insert, list, after({ separate: true }))).toBe(true);
    expect(onlyIfHolds(insert, list, after({ separate: 0 }))).toBe(false);
    expect(onlyIfHolds(insert, list, after({ separate: false }))).toBe(false);
    expect(onlyIfHolds(insert, list, after(undefined))).toBe(false);
    expect(onlyIfHolds(insert, list, [{ kind: 'skipped' }])).toBe(false);
  });

  it('drop and build the late indexes around the insert, only when offered and the plan says so', () => {
    const late = {
      drop: 'DROP INDEX a',
      build: 'CREATE INDEX a ON programmes (x)',
      storedBound: '7',
    };
    const options = {
      collapsed: false,
      winners: LATE_INDEX_MIN_ROWS,
      pruneBeforeMs: null,
      changesBeforeMs: null,
    };
    const offered = mergeSteps(SQLITE_MERGE, SQLITE_MERGE.stagedTableNames(), FILE, {
      ...options,
      lateIndexes: late,
      lateTextIndexes: null,
    });
    const labels = offered.map((s) => s.label);
    const at = labels.indexOf('insert');
    expect(labels.slice(at - 1, at + 2)).toEqual(['dropLateIndexes', 'insert', 'buildLateIndexes']);
    const plan = offered.find((s) => s.label === 'plan');
    expect(plan?.sql).toContain('>= 7');
    expect(plan?.params).toContain(LATE_INDEX_MIN_ROWS);
    const drop = offered[at - 1];
    if (drop === undefined) throw new Error('no step');
    const planned = (row: Record<string, unknown>) =>
      offered.map((s): MergeStepResult =>
        s === plan ? { kind: 'get', row } : { kind: 'skipped' },
      );
    expect(onlyIfHolds(drop, offered, planned({ separate: 1, late: 1 }))).toBe(true);
    expect(onlyIfHolds(drop, offered, planned({ separate: 1, late: 0 }))).toBe(false);

    const notOffered = mergeSteps(SQLITE_MERGE, SQLITE_MERGE.stagedTableNames(), FILE, {
      ...options,
      lateIndexes: null,
      lateTextIndexes: null,
    });
    expect(notOffered.map((s) => s.label)).not.toContain('dropLateIndexes');
    // Fewer programmes than the least worth it: not offered whatever the engine gives.
    expect(mergeStepOptions(FILE, {}, false, LATE_INDEX_MIN_ROWS - 1, late).lateIndexes).toBeNull();
    expect(mergeStepOptions(FILE, {}, false, LATE_INDEX_MIN_ROWS, late).lateIndexes).toBe(late);
  });

  it('drop and build the texts’ late indexes around the new texts, only when offered and none is stored', () => {
    const texts = { drop: 'DROP INDEX t', build: 'CREATE INDEX t ON search_texts (words)' };
    const steps = mergeSteps(POSTGRES_MERGE, POSTGRES_MERGE.stagedTableNames(), FILE, {
      collapsed: false,
      winners: LATE_INDEX_MIN_ROWS,
      pruneBeforeMs: null,
      changesBeforeMs: null,
      lateIndexes: null,
      lateTextIndexes: texts,
    });
    const labels = steps.map((s) => s.label);
    const at = labels.indexOf('addSearchTexts');
    expect(labels.slice(at - 2, at + 3)).toEqual([
      'textsPlan',
      'dropLateTextIndexes',
      'addSearchTexts',
      'buildLateTextIndexes',
      'fileTextIds',
    ]);
    const plan = steps[at - 2];
    const drop = steps[at - 1];
    const build = steps[at + 1];
    if (plan === undefined || drop === undefined || build === undefined) throw new Error('no step');
    expect(drop.sql).toBe(texts.drop);
    expect(build.sql).toBe(texts.build);
    const planned = (late: boolean) =>
      steps.map((s): MergeStepResult =>
        s === plan ? { kind: 'get', row: { late } } : { kind: 'skipped' },
      );
    for (const step of [drop, build]) {
      expect(onlyIfHolds(step, steps, planned(true))).toBe(true);
      expect(onlyIfHolds(step, steps, planned(false))).toBe(false);
    }
    const small = mergeStepOptions(FILE, {}, false, LATE_INDEX_MIN_ROWS - 1, null, texts);
    expect(small.lateTextIndexes).toBeNull();
    expect(
      mergeSteps(POSTGRES_MERGE, POSTGRES_MERGE.stagedTableNames(), FILE, small).map(
        (s) => s.label,
      ),
    ).not.toContain('textsPlan');
  });

  it.each(DIALECTS)('count a first ingest’s programmes from its insert (%s)', (_, d) => {
    const list = steps(d);
    const stats = mergeStats(
      list,
      results(list, {
        insertChannels: [3],
        updateChannels: [1],
        plan: { separate: 1, overlapping: 0 },
        insert: [10],
        prune: [4],
      }),
      10,
    );
    expect(stats).toEqual({
      channelsAdded: 3,
      channelsUpdated: 1,
      programmesAdded: 10,
      programmesUpdated: 0,
      programmesUnchanged: 0,
      programmesRemoved: 0,
      programmesPruned: 4,
    });
  });

  it.each(DIALECTS)('count added, updated and removed programmes of an upsert (%s)', (_, d) => {
    const list = steps(d);
    // 10 staged, 8 of them stored in their slot; the upserts wrote 2 new and 3 changed rows.
    const upserts = sqlOf(list, 'upsert').length;
    const removals = sqlOf(list, 'remove').length;
    const stats = mergeStats(
      list,
      results(list, {
        plan: { separate: 0, overlapping: 1 },
        match: { existing: '8', remove: 1 },
        remove: removals === 2 ? [1, 2] : [3],
        upsert: upserts === 2 ? [4, 1] : [5],
      }),
      10,
    );
    expect(stats).toEqual({
      channelsAdded: 0,
      channelsUpdated: 0,
      programmesAdded: 2,
      programmesUpdated: 3,
      programmesUnchanged: 5,
      programmesRemoved: 3,
      programmesPruned: 0,
    });
  });

  it.each(DIALECTS)('follow the programme columns of the list (%s)', (_, d) => {
    const list = steps(d);
    const [insert] = sqlOf(list, 'insert');
    const [gather] = sqlOf(list, 'gatherUpserts');
    // The search words are written only where the engine keeps them (storesSearchWords).
    const stored = (name: string) => d.storesSearchWords || name !== 'search_words';
    const written = /INSERT INTO programmes \(([^)]*)\)/.exec(insert ?? '')?.[1]?.split(/,\s*/);
    for (const column of PROGRAMME_COLUMNS) {
      expect(written?.includes(column.name)).toBe(stored(column.name));
      // Each staged row is compared with its stored one on what an upsert may change.
      const compared = d.isDistinct(`p.${column.name}`, `f.${column.name}`);
      expect(gather?.includes(compared)).toBe(column.role !== 'slot' && stored(column.name));
    }
    const upserts = sqlOf(list, 'upsert');
    expect(upserts.length).toBeGreaterThan(0);
    for (const upsert of upserts) {
      for (const column of PROGRAMME_COLUMNS) {
        const set = `${column.name} = excluded.${column.name}`;
        const changed = d.isDistinct(`programmes.${column.name}`, `excluded.${column.name}`);
        // The slot is the conflict target: never set, never compared.
        if (column.role === 'slot' || !stored(column.name)) {
          expect(upsert).not.toContain(set);
          expect(upsert).not.toContain(changed);
        } else {
          expect(upsert).toContain(set);
          expect(upsert).toContain(changed);
        }
      }
    }
    const [collapse] = collapseSteps(d, d.stagedTableNames(), true);
    for (const column of PROGRAMME_COLUMNS) {
      const compared = d.isNotDistinct(column.name, `lag(${column.name}) OVER w`);
      if (column.role === 'content') expect(collapse?.sql).toContain(compared);
      else expect(collapse?.sql).not.toContain(compared);
    }
  });

  it('upsert on both unique indexes of programmes, in one statement or one per index', () => {
    const [sqlite] = sqlOf(steps(SQLITE_MERGE), 'upsert');
    expect(sqlOf(steps(SQLITE_MERGE), 'upsert')).toHaveLength(1);
    expect(sqlite).toContain('ON CONFLICT (channel_id, start_ms, id)');
    expect(sqlite).toContain('ON CONFLICT (channel_id, id) WHERE start_ms IS NULL');
    const [parsed, unparsed, ...rest] = sqlOf(steps(POSTGRES_MERGE), 'upsert');
    expect(rest).toEqual([]);
    expect(parsed).toContain('f.start_ms IS NOT NULL');
    expect(parsed).toContain('ON CONFLICT (channel_id, start_ms, id COLLATE "C")');
    expect(unparsed).toContain('f.start_ms IS NULL');
    expect(unparsed).toContain('ON CONFLICT (channel_id, id COLLATE "C") WHERE start_ms IS NULL');
  });

  it.each(DIALECTS)('upsert and log only the rows gathered as added or changed (%s)', (_, d) => {
    const all = steps(d);
    const gathered = sqlOf(all, 'gatherUpserts');
    expect(gathered.length).toBeGreaterThan(0);
    const table = /INSERT INTO (\S+) \(seq, added, old_text\)/.exec(gathered[0] ?? '')?.[1];
    expect(table).toMatch(/upserts$/);
    for (const label of ['match', 'logUpsert', 'upsert']) {
      const statements = sqlOf(all, label);
      expect(statements.length).toBeGreaterThan(0);
      for (const sql of statements) expect(sql).toContain(`FROM ${table} AS u`);
    }
    // The texts changes may leave unused are the changed rows' old ones, not every replaced one.
    expect(
      sqlOf(all, 'gatherTexts').filter((sql) => sql.includes(`FROM ${table} AS u`)),
    ).toHaveLength(1);
  });

  it.each(DIALECTS)('insert among stored programmes in the dialect’s order (%s)', (_, d) => {
    const inserts = sqlOf(steps(d), 'insert');
    if (d.insertOrder === null) {
      expect(inserts).toHaveLength(1);
      expect(inserts[0]).not.toContain('ORDER BY');
      return;
    }
    expect(inserts).toHaveLength(2);
    expect(inserts[0]).not.toContain('ORDER BY');
    expect(inserts[1]).toMatch(new RegExp(`ORDER BY ${d.insertOrder}\\s*$`));
    // Exactly one of the two runs: `in_place` is a separate insert not taking the late path.
    const [plan] = sqlOf(steps(d), 'plan');
    expect(plan).toMatch(/stored = 0 AND NOT \(false\) AS in_place/);
  });

  it.each(DIALECTS)('take the same steps on the same conditions (%s)', (_, d) => {
    const extra = new Set(['analyseStaged', 'indexStaged', 'inCommitOrder']);
    const order = steps(d, false)
      .filter((s) => !extra.has(s.label))
      .map((s) => `${s.label}${s.onlyIf ? ` if ${s.onlyIf.label}.${s.onlyIf.column}` : ''}`);
    // A step done in one statement per index appears once per statement.
    expect([...new Set(order)]).toEqual([
      'sourceFile',
      'logChannels',
      'updateChannels',
      'insertChannels',
      // The file's new texts stored (fileTextSteps made them distinct before), each with its
      // id for the programmes.
      'addSearchTexts',
      'fileTextIds',
      'prepareFileTexts',
      'plan',
      'logInsert if plan.separate',
      // In the file's order; or, where the dialect has an order for an insert among stored
      // programmes, so unless the late indexes are dropped.
      ...(d.insertOrder === null
        ? ['insert if plan.separate']
        : ['insert if plan.late', 'insert if plan.in_place']),
      // The rows to add or change, found once: the count of stored ones, the texts they may
      // leave unused, the records and the upsert are made of them.
      'gatherUpserts if plan.overlapping',
      'match if plan.overlapping',
      // Before anything is removed or changed: the texts that may be left unused.
      'gatherTexts if match.remove',
      'gatherTexts if plan.overlapping',
      'logRemove if match.remove',
      'remove if match.remove',
      'logUpsert if plan.overlapping',
      'upsert if plan.overlapping',
      'dropSearchTexts',
    ]);
    // With pruning, the pruned programmes' texts are gathered too, before they go.
    expect(
      steps(d, true)
        .map((s) => s.label)
        .slice(-6),
    ).toEqual([
      'logPrune',
      'gatherTexts',
      'prune',
      'dropSearchTexts',
      'changesHorizon',
      'pruneChanges',
    ]);
    // PostgreSQL's merges take turns from the first step (the change log's order).
    expect(steps(d).some((s) => s.label === 'inCommitOrder')).toBe(d === POSTGRES_MERGE);
  });

  it.each(DIALECTS)('number the parameters of each statement from the first (%s)', (_, d) => {
    // With late indexes offered too, whose condition the plan uses twice.
    const late = {
      drop: 'DROP INDEX x',
      build: 'CREATE INDEX x ON programmes (id)',
      storedBound: '0',
    };
    const withLate = mergeSteps(d, d.stagedTableNames(), FILE, {
      collapsed: true,
      winners: 10_000,
      pruneBeforeMs: 0,
      changesBeforeMs: 0,
      lateIndexes: late,
      lateTextIndexes: null,
    });
    expect(withLate.some((step) => step.sql === late.build)).toBe(true);
    for (const step of [...steps(d), ...withLate]) {
      const params = step.params ?? [];
      const placeholders = params.map((_value, i) => d.placeholder(i + 1));
      if (d === POSTGRES_MERGE) {
        const used = [...step.sql.matchAll(/\$(\d+)/g)].map((m) => `$${m[1]}`);
        expect(new Set(used)).toEqual(new Set(placeholders));
      } else {
        expect(step.sql.split('?').length - 1).toBe(params.length);
      }
    }
  });
});
