import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ingestXmltv,
  type IngestOptions,
  type IngestSummary,
} from '../../src/catalogue/ingest/ingest-xmltv.js';
import type { IngestInput } from '../../src/catalogue/ingest/byte-source.js';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import type { EngineStore } from '../helpers/engines.js';
import type { Channel } from '../../src/domain/channel.js';
import type { Programme } from '../../src/domain/programme.js';

export const FIXTURES = join(import.meta.dirname, '../fixtures/xmltv');

export const fixturePath = (name: string): string => join(FIXTURES, name);
export const fixtureText = (name: string): string => readFileSync(fixturePath(name), 'utf8');

/** 1-based line of the first occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`"${needle}" is not in the text`);
  return text.slice(0, at).split('\n').length;
}

export const NOW = Date.UTC(2026, 2, 1, 6, 0, 0);

export function options(overrides: Partial<IngestOptions> = {}): IngestOptions {
  return { country: null, assumeOffsetMinutes: 0, nowMs: NOW, ...overrides };
}

export function ingest(
  store: Pick<Store, 'ingest'>,
  input: IngestInput | string,
  overrides: Partial<IngestOptions> = {},
): Promise<IngestSummary> {
  const source = typeof input === 'string' ? { source: input } : input;
  return ingestXmltv(store.ingest, source, options(overrides));
}

/** A store and raw SQL under it, on either engine (`openEngineStore`, `openTempStore`). */
export type StoreWithSql = Pick<EngineStore, 'store' | 'sql'>;

/** Every row of the catalogue tables, in a fixed order: equal snapshots mean equal values. */
export async function tableSnapshot({ sql }: Pick<EngineStore, 'sql'>): Promise<{
  channels: unknown[];
  programmes: unknown[];
  sourceFiles: unknown[];
}> {
  return {
    channels: await sql('SELECT * FROM channels ORDER BY id'),
    programmes: await sql('SELECT * FROM programmes ORDER BY id'),
    sourceFiles: await sql('SELECT * FROM source_files ORDER BY id'),
  };
}

/** What the API would show: every country, its channels, and every programme (days=all). */
export async function readerView(
  store: Store,
): Promise<{ channels: Channel[]; programmes: Record<string, Programme[]> }> {
  const channels: Channel[] = [];
  for (const { country } of await store.catalogue.listCountries()) {
    channels.push(...(await store.catalogue.listChannels(country)));
  }
  const programmes: Record<string, Programme[]> = {};
  for (const channel of channels) {
    programmes[channel.id] = await store.catalogue.listProgrammes(channel.id);
  }
  return { channels, programmes };
}

/** The catalogue as both the tables and the reader see it. */
export async function catalogueState(temp: StoreWithSql) {
  return { tables: await tableSnapshot(temp), view: await readerView(temp.store) };
}

/** Temp tables left on the store's connection (the `:memory:` fallback stages there). */
export function tempTables(store: SqliteStore): string[] {
  return store.db
    .prepare(`SELECT name FROM sqlite_temp_master WHERE type = 'table'`)
    .pluck()
    .all() as string[];
}

/** A synthetic guide with `channels` × `perChannel` programmes, for size-dependent tests. */
export function syntheticGuide(channels: number, perChannel: number, descLength = 200): string {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n'];
  for (let c = 0; c < channels; c++) {
    parts.push(
      `<channel id="synthetic-${c}.nl"><display-name>Synthetic ${c}</display-name></channel>\n`,
    );
  }
  const base = Date.UTC(2026, 2, 1);
  const time = (ms: number) =>
    new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14) + ' +0000';
  for (let c = 0; c < channels; c++) {
    for (let p = 0; p < perChannel; p++) {
      const start = base + p * 1_800_000;
      parts.push(
        `<programme start="${time(start)}" stop="${time(start + 1_800_000)}" channel="synthetic-${c}.nl">` +
          `<title>Show ${p}</title><desc>${'d'.repeat(descLength)}</desc></programme>\n`,
      );
    }
  }
  parts.push('</tv>\n');
  return parts.join('');
}
