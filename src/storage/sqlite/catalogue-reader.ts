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
import type { CountryCount } from '../../domain/channel.js';
import type { SqliteDatabase } from './connection.js';

/** Catalogue reads over one SQLite connection, with every statement prepared once. */
export function createSqliteCatalogueReader(db: SqliteDatabase): CatalogueReader {
  const countries = db.prepare<[], CountryCount>(
    `SELECT country, count(*) AS channelCount FROM channels GROUP BY country ORDER BY country`,
  );
  const channelsOfCountry = db.prepare<[string], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = ? ORDER BY name_key, id`,
  );
  // instr() rather than LIKE: the needle is plain text, so % and _ must not act as wildcards.
  const searchAll = db.prepare<[string, number], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE instr(name_folded, ?) > 0
     ORDER BY name_key, id LIMIT ?`,
  );
  const searchCountry = db.prepare<[string, string, number], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = ? AND instr(name_folded, ?) > 0
     ORDER BY name_key, id LIMIT ?`,
  );
  const channelExists = db.prepare<[string], { found: number }>(
    'SELECT 1 AS found FROM channels WHERE id = ?',
  );
  const channelCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM channels');
  const programmes = db.prepare<[string], ProgrammeRow>(
    `SELECT ${PROGRAMME_COLUMNS} FROM programmes WHERE channel_id = ?
     ORDER BY start_ms IS NULL, start_ms, id`,
  );
  // The (channel, start, id) index holds the id: the channel's entries are scanned in it.
  const programme = db.prepare<[string, string], RichProgrammeRow>(
    `SELECT ${PROGRAMME_COLUMNS}, details FROM programmes WHERE channel_id = ? AND id = ?`,
  );

  return {
    async listCountries() {
      return countries.all();
    },
    async listChannels(country) {
      return channelsOfCountry.all(country).map(toChannel);
    },
    async searchChannels(needle, country, limit) {
      const rows =
        country === null ? searchAll.all(needle, limit) : searchCountry.all(country, needle, limit);
      return rows.map(toChannel);
    },
    async channelExists(id) {
      return channelExists.get(id) !== undefined;
    },
    async countChannels() {
      return channelCount.get()?.n ?? 0;
    },
    async listProgrammes(channelId) {
      return programmes.all(channelId).map(toProgramme);
    },
    async findProgramme(channelId, programmeId) {
      const row = programme.get(channelId, programmeId);
      return row === undefined ? null : toRichProgramme(row, channelId);
    },
  };
}
