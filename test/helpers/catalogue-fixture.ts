import { randomUUID } from 'node:crypto';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { storedV1Texts } from '../../src/domain/programme.js';
import { decodeDetails } from '../../src/domain/programme-details.js';
import { searchedTextsOf } from '../../src/domain/programme-search.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import type { Store } from '../../src/storage/store.js';

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
  /** Stored details text (encodeDetails); none by default. */
  details?: string;
  needsReview?: boolean;
}

/**
 * Writes channels and programmes with exactly the given fields, through the store's ingest
 * session (so it works on every engine), bypassing the XMLTV pipeline; returns ids by xmltv id.
 */
export async function seedCatalogue(
  store: Store,
  channels: FixtureChannel[],
  programmes: FixtureProgramme[] = [],
  updatedAt = 1_700_000_000_000,
): Promise<{ channelIds: Map<string, string>; sourceFileId: string }> {
  const sourceFileId = randomUUID();
  const channelIds = new Map<string, string>();
  const session = await store.ingest.beginIngest();
  try {
    for (const c of channels) {
      const id = channelIdFor(c.xmltvId);
      channelIds.set(c.xmltvId, id);
      session.stageChannel({
        id,
        xmltvId: c.xmltvId,
        name: c.name,
        displayNames: [{ value: c.name, lang: '' }],
        icon: c.icon ?? '',
        // A channel without a given country is new and flagged; its country is the fallback.
        country: c.needsReview ? null : c.country,
        fallbackCountry: c.country,
        declared: true,
      });
    }
    for (const [line, p] of programmes.entries()) {
      const channelId = channelIds.get(p.channel) ?? channelIdFor(p.channel);
      const startMs = p.startMs ?? null;
      const start = startMs === null ? (p.rawStart ?? '') : formatXmltvUtc(startMs);
      const stopMs = startMs === null ? null : startMs + (p.durationMin ?? 30) * 60_000;
      const texts = {
        title: p.title ?? 'A programme',
        desc: p.desc ?? '',
        category: p.category ?? '',
      };
      const v1 = storedV1Texts(texts);
      session.stageProgramme({
        channelId,
        start,
        stop: stopMs === null ? '' : formatXmltvUtc(stopMs),
        startMs,
        stopMs,
        ...texts,
        details: p.details ?? '',
        searchedTexts: searchedTextsOf(v1, decodeDetails(p.details ?? '', v1)),
        needsReview: Boolean(p.needsReview) || startMs === null,
        line: line + 1,
      });
    }
    await session.commit({
      id: sourceFileId,
      source: 'fixture',
      country: null,
      sizeBytes: 0,
      sha256: '',
      ingestedAt: updatedAt,
      summary: {},
    });
  } catch (error) {
    await session.abort();
    throw error;
  }
  return { channelIds, sourceFileId };
}
