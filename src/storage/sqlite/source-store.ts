import { randomUUID } from 'node:crypto';
import { DuplicateSourceError } from '../errors.js';
import { SOURCE_COLUMNS, toSource, type SourceRow } from '../rows.js';
import type { SourceRefreshState, SourceStore } from '../source-store.js';
import type { SqliteDatabase } from './connection.js';

type Params = Record<string, string | number | null>;

/** The refresh result columns, as named parameters (shared by both engines' SQL shape). */
function refreshParams(state: SourceRefreshState): Params {
  return {
    nextRunAt: state.nextRunAt,
    failures: state.failures,
    lastSuccessAt: state.lastSuccessAt,
    lastIngestAt: state.lastIngestAt,
    lastStatus: state.lastStatus,
    lastOutcome: state.lastOutcome,
    lastError: state.lastError,
    etag: state.etag,
    lastModified: state.lastModified,
    contentSha256: state.contentSha256,
    sourceFileId: state.sourceFileId,
    channels: state.channels,
    programmes: state.programmes,
    latestEndMs: state.latestEndMs,
  };
}

/**
 * Guide sources over one SQLite connection. SQLite runs one write at a time, so the claim's
 * conditional UPDATE lets exactly one process (a server, a CLI run) take a source's lease.
 */
export function createSqliteSourceStore(db: SqliteDatabase): SourceStore {
  const byId = db.prepare<[string], SourceRow>(
    `SELECT ${SOURCE_COLUMNS} FROM sources WHERE id = ?`,
  );
  const all = db.prepare<[], SourceRow>(
    `SELECT ${SOURCE_COLUMNS} FROM sources ORDER BY created_at, id`,
  );
  const insert = db.prepare<Params>(
    `INSERT INTO sources (id, location, country, every_ms, assume_offset_minutes, created_at,
       next_run_at) VALUES (@id, @location, @country, @everyMs, @offset, @now, @now)`,
  );
  const remove = db.prepare<[string]>('DELETE FROM sources WHERE id = ?');
  const claim = db.prepare<Params>(
    `UPDATE sources SET lease_holder = @holder, lease_until = @until, last_attempt_at = @now
     WHERE id = @id AND (lease_until IS NULL OR lease_until <= @now)
       AND (@onlyIfDue = 0 OR next_run_at <= @now)`,
  );
  const renew = db.prepare<Params>(
    'UPDATE sources SET lease_until = @until WHERE id = @id AND lease_holder = @holder',
  );
  const finish = db.prepare<Params>(
    `UPDATE sources SET next_run_at = @nextRunAt, failures = @failures,
       last_success_at = @lastSuccessAt, last_ingest_at = @lastIngestAt,
       last_status = @lastStatus, last_outcome = @lastOutcome, last_error = @lastError,
       etag = @etag, last_modified = @lastModified, content_sha256 = @contentSha256,
       source_file_id = @sourceFileId, channels = @channels, programmes = @programmes,
       latest_end_ms = @latestEndMs, lease_holder = NULL, lease_until = NULL
     WHERE id = @id AND lease_holder = @holder`,
  );
  // `IS`: equal, or both NULL.
  const warned = db.prepare<Params>(
    `UPDATE sources SET warned_flags = @flags, warned_at = @at
     WHERE id = @id AND warned_flags IS @seenFlags AND warned_at IS @seenAt`,
  );
  const find = (id: string) => {
    const row = byId.get(id);
    return row === undefined ? null : toSource(row);
  };

  return {
    async addSource(source, nowMs) {
      const id = randomUUID();
      try {
        insert.run({
          id,
          location: source.location,
          country: source.country,
          everyMs: source.everyMs,
          offset: source.assumeOffsetMinutes,
          now: nowMs,
        });
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new DuplicateSourceError(`${source.location} is already a source`);
        }
        throw error;
      }
      const added = find(id);
      if (added === null) throw new Error(`source ${id} vanished after insert`);
      return added;
    },
    async findSource(id) {
      return find(id);
    },
    async listSources() {
      return all.all().map(toSource);
    },
    async removeSource(id) {
      return remove.run(id).changes > 0;
    },
    async claimSource(id, { holder, nowMs, leaseMs, onlyIfDue }) {
      const result = claim.run({
        id,
        holder,
        now: nowMs,
        until: nowMs + leaseMs,
        onlyIfDue: onlyIfDue ? 1 : 0,
      });
      return result.changes === 0 ? null : find(id);
    },
    async renewLease(id, holder, untilMs) {
      return renew.run({ id, holder, until: untilMs }).changes > 0;
    },
    async finishRefresh(id, holder, state) {
      const result = finish.run({ ...refreshParams(state), id, holder });
      return result.changes === 0 ? null : find(id);
    },
    async recordWarning(id, seen, warning) {
      const result = warned.run({
        id,
        flags: warning.flags,
        at: warning.at,
        seenFlags: seen.flags,
        seenAt: seen.at,
      });
      return result.changes > 0;
    },
  };
}
