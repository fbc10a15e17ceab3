import type pg from 'pg';
import { CHANNEL_COLUMNS, toChannel, type ChannelRow } from '../rows.js';
import type { PlaygroundStore } from '../playground-store.js';

/**
 * The playground's channel marks over a PostgreSQL pool (a trigger moves the catalogue
 * version); `onWrite` runs after each change so this instance sees it at its next request.
 */
export function createPostgresPlaygroundStore(
  pool: pg.Pool,
  onWrite: () => void = () => {},
): PlaygroundStore {
  return {
    async listChannels() {
      const { rows } = await pool.query<ChannelRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels
         WHERE id IN (SELECT channel_id FROM playground_channels)
         ORDER BY name_key, id COLLATE "C"`,
      );
      return rows.map(toChannel);
    },
    async add(channelId, nowMs) {
      const { rowCount } = await pool.query(
        `INSERT INTO playground_channels (channel_id, added_at)
         SELECT id, $2 FROM channels WHERE id = $1
         ON CONFLICT (channel_id) DO NOTHING`,
        [channelId, nowMs],
      );
      onWrite();
      if ((rowCount ?? 0) > 0) return 'added';
      const found = await pool.query('SELECT 1 FROM channels WHERE id = $1', [channelId]);
      return (found.rowCount ?? 0) > 0 ? 'already-marked' : 'no-such-channel';
    },
    async remove(channelId) {
      const { rowCount } = await pool.query(
        'DELETE FROM playground_channels WHERE channel_id = $1',
        [channelId],
      );
      onWrite();
      return (rowCount ?? 0) > 0;
    },
  };
}
