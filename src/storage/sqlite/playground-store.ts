import { CHANNEL_COLUMNS, toChannel, type ChannelRow } from '../rows.js';
import type { PlaygroundStore } from '../playground-store.js';
import type { SqliteDatabase } from './connection.js';

/** The playground's channel marks over SQLite (triggers move the catalogue version). */
export function createSqlitePlaygroundStore(db: SqliteDatabase): PlaygroundStore {
  const marked = db.prepare<[], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels
     WHERE id IN (SELECT channel_id FROM playground_channels)
     ORDER BY name_key, id`,
  );
  const insert = db.prepare<[number, string]>(
    `INSERT INTO playground_channels (channel_id, added_at)
     SELECT id, ? FROM channels WHERE id = ?
     ON CONFLICT (channel_id) DO NOTHING`,
  );
  const exists = db.prepare<[string], { found: number }>(
    'SELECT 1 AS found FROM channels WHERE id = ?',
  );
  const remove = db.prepare<[string]>('DELETE FROM playground_channels WHERE channel_id = ?');
  return {
    async listChannels() {
      return marked.all().map(toChannel);
    },
    async add(channelId, nowMs) {
      if (insert.run(nowMs, channelId).changes > 0) return 'added';
      return exists.get(channelId) === undefined ? 'no-such-channel' : 'already-marked';
    },
    async remove(channelId) {
      return remove.run(channelId).changes > 0;
    },
  };
}
