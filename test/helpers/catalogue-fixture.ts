import { randomUUID } from 'node:crypto';
import { channelIdFor, programmeIdFor } from '../../src/domain/catalogue-ids.js';
import { foldForSearch, nameSortKey } from '../../src/domain/search-folding.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import type { SqliteDatabase } from '../../src/storage/sqlite/database.js';

/** A channel to put straight into the catalogue tables (HTTP tests control every field). */
export interface FixtureChannel {
  xmltvId: string;
  name: string;
  country: string;
  icon?: string;
  needsReview?: boolean;
}

/** A programme by start instant, or by raw start text for the unparseable case. */
export interface FixtureProgramme {
  channel: string;
  startMs?: number;
  rawStart?: string;
  durationMin?: number;
  title?: string;
  desc?: string;
  category?: string;
  needsReview?: boolean;
}

/** Writes channels and programmes directly, bypassing ingest; returns ids by xmltv id. */
export function seedCatalogue(
  db: SqliteDatabase,
  channels: FixtureChannel[],
  programmes: FixtureProgramme[] = [],
  updatedAt = 1_700_000_000_000,
): { channelIds: Map<string, string>; sourceFileId: string } {
  const sourceFileId = randomUUID();
  const channelIds = new Map<string, string>();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
       VALUES (?, 'fixture', NULL, 0, '', ?, '{}')`,
    ).run(sourceFileId, updatedAt);
    const insertChannel = db.prepare(
      `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country, needs_review,
         created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const c of channels) {
      const id = channelIdFor(c.xmltvId);
      channelIds.set(c.xmltvId, id);
      insertChannel.run(
        id,
        c.xmltvId,
        c.name,
        nameSortKey(c.name),
        foldForSearch(c.name),
        c.icon ?? '',
        c.country,
        c.needsReview ? 1 : 0,
        updatedAt,
        updatedAt,
      );
    }
    const insertProgramme = db.prepare(
      `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title, description,
         category, needs_review, source_file_id, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const p of programmes) {
      const channelId = channelIds.get(p.channel) ?? channelIdFor(p.channel);
      const startMs = p.startMs ?? null;
      const start = startMs === null ? (p.rawStart ?? '') : formatXmltvUtc(startMs);
      const stopMs = startMs === null ? null : startMs + (p.durationMin ?? 30) * 60_000;
      insertProgramme.run(
        programmeIdFor(channelId, start),
        channelId,
        start,
        stopMs === null ? '' : formatXmltvUtc(stopMs),
        startMs,
        stopMs,
        p.title ?? 'A programme',
        p.desc ?? '',
        p.category ?? '',
        p.needsReview || startMs === null ? 1 : 0,
        sourceFileId,
        updatedAt,
      );
    }
  })();
  return { channelIds, sourceFileId };
}
