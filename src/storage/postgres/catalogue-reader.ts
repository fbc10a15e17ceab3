import type pg from 'pg';
import {
  CHANNEL_COLUMNS,
  PROGRAMME_COLUMNS,
  toChannel,
  toProgramme,
  toRichProgramme,
  type ChannelRow,
  type ProgrammeRow,
  type RichProgrammeRow,
} from '../rows.js';
import type { CatalogueReader } from '../catalogue-reader.js';

// Byte order, as on SQLite, so both engines list in exactly the same order.
const CHANNEL_ORDER = 'ORDER BY name_key, id COLLATE "C"';

/** The needle as a LIKE pattern: `%`, `_` and `\` match only themselves. */
function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Catalogue reads over a PostgreSQL pool. */
export function createPostgresCatalogueReader(pool: pg.Pool): CatalogueReader {
  return {
    async listCountries() {
      const { rows } = await pool.query<{ country: string; channelCount: number }>(
        `SELECT country, count(*)::int AS "channelCount" FROM channels
         GROUP BY country ORDER BY country COLLATE "C"`,
      );
      return rows;
    },
    async listChannels(country) {
      const { rows } = await pool.query<ChannelRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = $1 ${CHANNEL_ORDER}`,
        [country],
      );
      return rows.map(toChannel);
    },
    async searchChannels(needle, country, limit) {
      // LIKE on the folded name uses the trigram index.
      const { rows } =
        country === null
          ? await pool.query<ChannelRow>(
              `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE name_folded LIKE $1
               ${CHANNEL_ORDER} LIMIT $2`,
              [containsPattern(needle), limit],
            )
          : await pool.query<ChannelRow>(
              `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = $1 AND name_folded LIKE $2
               ${CHANNEL_ORDER} LIMIT $3`,
              [country, containsPattern(needle), limit],
            );
      return rows.map(toChannel);
    },
    async channelExists(id) {
      const { rowCount } = await pool.query('SELECT 1 FROM channels WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async countChannels() {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM channels');
      return rows[0]?.n ?? 0;
    },
    async listProgrammes(channelId) {
      const { rows } = await pool.query<ProgrammeRow>(
        `SELECT ${PROGRAMME_COLUMNS} FROM programmes WHERE channel_id = $1
         ORDER BY start_ms IS NULL, start_ms, id COLLATE "C"`,
        [channelId],
      );
      return rows.map(toProgramme);
    },
    async findProgramme(channelId, programmeId) {
      const { rows } = await pool.query<RichProgrammeRow>(
        `SELECT ${PROGRAMME_COLUMNS}, details FROM programmes WHERE channel_id = $1 AND id = $2`,
        [channelId, programmeId],
      );
      const row = rows[0];
      return row === undefined ? null : toRichProgramme(row, channelId);
    },
  };
}
