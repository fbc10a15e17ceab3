import { afterEach, describe, expect, it } from 'vitest';
import { stageMergeForPlanCheck } from './ingest-session.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

const NOW = Date.UTC(2026, 10, 20);

let store: SqliteStore | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

describe('the SQLite merge', () => {
  // Without statistics SQLite may pick either side of a join as the outer loop. Scanning every
  // stored programme to probe the file's few thousand channels took 0.3 s with 2 million stored,
  // for nothing, and so did pruning by start alone; each statement must reach the stored
  // programmes by their indexes only.
  it('reaches stored programmes through an index in every statement, never by a scan', () => {
    store = openSqliteStore({ path: ':memory:', nowMs: NOW });
    const db = store.db;
    // As on an ingest's staging connection (STAGING_PRAGMAS), which runs the merge.
    db.pragma('foreign_keys = OFF');
    const steps = stageMergeForPlanCheck(db, {
      id: 'file',
      source: 'guide.xml',
      country: null,
      sizeBytes: 1,
      sha256: '00',
      ingestedAt: NOW,
      summary: {},
    });
    const plans: string[] = [];
    for (const step of steps) {
      if (step.kind === 'exec') {
        db.exec(step.sql);
        continue;
      }
      const rows = db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${step.sql}`)
        .all([...(step.params ?? [])]);
      plans.push(...rows.map((r) => r.detail));
    }
    const programmeAccesses = plans.filter((d) => /^(SCAN|SEARCH) (p|programmes)\b/.test(d));
    expect(programmeAccesses.length).toBeGreaterThanOrEqual(5);
    for (const detail of programmeAccesses) expect(detail).toMatch(/^SEARCH /);
  });
});
