import { decodeDetails } from '../../domain/programme-details.js';
import { storedV1Texts } from '../../domain/programme.js';
import { channelXml, programmeXml, XMLTV_TAIL, xmltvHead } from '../../domain/xmltv-writer.js';
import type { FeedStore, LineupChannel } from '../../storage/feed-store.js';

/** The `generator-info-name` of every feed. */
export const FEED_GENERATOR = 'Onair';

/**
 * A feed's XMLTV document, in parts: the channels, then each channel's programmes starting in
 * [fromMs, toMs), read one channel at a time so memory holds one channel's week, not the
 * lineup's. The caller writes each part as it comes.
 */
export async function* guideFeedXml(
  feeds: FeedStore,
  channels: readonly LineupChannel[],
  fromMs: number,
  toMs: number,
): AsyncGenerator<string> {
  let head = xmltvHead(FEED_GENERATOR);
  for (const channel of channels) head += channelXml(channel);
  yield head;
  for (const channel of channels) {
    const programmes = await feeds.programmesStarting(channel.id, fromMs, toMs);
    if (programmes.length === 0) continue;
    let part = '';
    for (const p of programmes) {
      const details = decodeDetails(p.details, storedV1Texts(p));
      part += programmeXml(channel.xmltvId, { start: p.start, stop: p.stop, details });
    }
    yield part;
  }
  yield XMLTV_TAIL;
}
