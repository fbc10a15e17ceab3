import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { DuplicateSourceError } from '../errors.js';
import { SOURCE_COLUMNS, toSource, type SourceRow } from '../rows.js';
import type { SourceStore } from '../source-store.js';

/**
 * Guide sources over a PostgreSQL pool. A claim is one conditional UPDATE: when two instances
 * claim at once, the second waits for the first's row lock, re-checks the condition against
 * the row as the first left it, and finds the lease taken; so exactly one refreshes.
 */
export function createPostgresSourceStore(pool: pg.Pool): SourceStore {
  const find = async (id: string) => {
    const { rows } = await pool.query<SourceRow>(
      `SELECT ${SOURCE_COLUMNS} FROM sources WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toSource(row);
  };
  const returned = (rows: SourceRow[]) => {
    const row = rows[0];
    return row === undefined ? null : toSource(row);
  };

  return {
    async addSource(source, nowMs) {
      try {
        const { rows } = await pool.query<SourceRow>(
          `INSERT INTO sources (id, location, country, every_ms, assume_offset_minutes,
             created_at, next_run_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
           RETURNING ${SOURCE_COLUMNS}`,
          [
            randomUUID(),
            source.location,
            source.country,
            source.everyMs,
            source.assumeOffsetMinutes,
            nowMs,
          ],
        );
        const added = returned(rows);
        if (added === null) throw new Error('the new source was not returned');
        return added;
      } catch (error) {
        if ((error as { code?: string }).code === '23505') {
          throw new DuplicateSourceError(`${source.location} is already a source`);
        }
        throw error;
      }
    },
    findSource: find,
    async listSources() {
      const { rows } = await pool.query<SourceRow>(
        `SELECT ${SOURCE_COLUMNS} FROM sources ORDER BY created_at, id COLLATE "C"`,
      );
      return rows.map(toSource);
    },
    async removeSource(id) {
      const result = await pool.query('DELETE FROM sources WHERE id = $1', [id]);
      return (result.rowCount ?? 0) > 0;
    },
    async claimSource(id, { holder, nowMs, leaseMs, onlyIfDue }) {
      const { rows } = await pool.query<SourceRow>(
        `UPDATE sources SET lease_holder = $2, lease_until = $4, last_attempt_at = $3
         WHERE id = $1 AND (lease_until IS NULL OR lease_until <= $3)
           AND (NOT $5 OR next_run_at <= $3)
         RETURNING ${SOURCE_COLUMNS}`,
        [id, holder, nowMs, nowMs + leaseMs, onlyIfDue],
      );
      return returned(rows);
    },
    async renewLease(id, holder, untilMs) {
      const result = await pool.query(
        'UPDATE sources SET lease_until = $3 WHERE id = $1 AND lease_holder = $2',
        [id, holder, untilMs],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async finishRefresh(id, holder, state) {
      const { rows } = await pool.query<SourceRow>(
        `UPDATE sources SET next_run_at = $3, failures = $4, last_success_at = $5,
           last_ingest_at = $6, last_status = $7, last_outcome = $8, last_error = $9, etag = $10,
           last_modified = $11, content_sha256 = $12, source_file_id = $13, channels = $14,
           programmes = $15, latest_end_ms = $16, lease_holder = NULL, lease_until = NULL
         WHERE id = $1 AND lease_holder = $2
         RETURNING ${SOURCE_COLUMNS}`,
        [
          id,
          holder,
          state.nextRunAt,
          state.failures,
          state.lastSuccessAt,
          state.lastIngestAt,
          state.lastStatus,
          state.lastOutcome,
          state.lastError,
          state.etag,
          state.lastModified,
          state.contentSha256,
          state.sourceFileId,
          state.channels,
          state.programmes,
          state.latestEndMs,
        ],
      );
      return returned(rows);
    },
    async recordWarning(id, seen, warning) {
      // As a claim: a second writer waits for the first's row lock, then finds the record
      // changed.
      const result = await pool.query(
        `UPDATE sources SET warned_flags = $2, warned_at = $3
         WHERE id = $1 AND warned_flags IS NOT DISTINCT FROM $4
           AND warned_at IS NOT DISTINCT FROM $5`,
        [id, warning.flags, warning.at, seen.flags, seen.at],
      );
      return (result.rowCount ?? 0) > 0;
    },
  };
}
