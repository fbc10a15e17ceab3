import type * as WorkerThreads from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ingestXmltv } from '../../catalogue/ingest/ingest-xmltv.js';
import { openTempStore, type TempStore } from '../../../test/helpers/temp-store.js';
import type { ProgrammeSearch } from '../catalogue-reader.js';
import { createSqliteProgrammeSearch } from './programme-search.js';
import { hitFrom, hitValues } from './search-worker-protocol.js';

// The real Worker, but the test keeps each search thread the store starts.
const threads = vi.hoisted(() => ({
  started: [] as { worker: WorkerThreads.Worker; entry: unknown }[],
}));
vi.mock('node:worker_threads', async (original) => {
  const real = await original<typeof WorkerThreads>();
  class KeptWorker extends real.Worker {
    constructor(entry: string | URL, options?: WorkerThreads.WorkerOptions) {
      super(entry, options);
      if (String(entry).includes('search-worker-thread'))
        threads.started.push({ worker: this, entry });
    }
  }
  return { ...real, Worker: KeptWorker };
});
const started = threads.started;

const NOW = Date.UTC(2026, 10, 20);

/** A guide of one channel whose programmes are "Show 0", "Show 1", … half an hour apart. */
function guide(count: number): Buffer {
  const programmes = Array.from({ length: count }, (_, i) => {
    const start = new Date(NOW + i * 1_800_000).toISOString().replace(/\D/g, '').slice(0, 14);
    return `<programme channel="a.ie" start="${start} +0000"><title>Show ${i}</title></programme>`;
  });
  return Buffer.from(
    `<tv><channel id="a.ie"><display-name>A</display-name></channel>${programmes.join('')}</tv>`,
  );
}

const search = (prefix: string): ProgrammeSearch => ({
  terms: { words: [], prefix },
  country: null,
  channels: null,
  fromMs: NOW,
  toMs: NOW + 7 * 86_400_000,
  after: null,
  limit: 5,
});

let temp: TempStore;
beforeEach(async () => {
  temp = openTempStore(NOW);
  started.length = 0;
  await ingestXmltv(
    temp.store.ingest,
    { name: 'a.xml', data: guide(20) },
    { country: 'IE', assumeOffsetMinutes: 0, nowMs: NOW },
  );
});
afterEach(async () => {
  await temp.dispose();
});

describe('the search thread', () => {
  it('answers as the same search on the store connection, from its entry file, started once', async () => {
    const inThread = createSqliteProgrammeSearch(temp.store.db);
    for (const prefix of ['show', 'sh', '7', 'nothing']) {
      expect(await temp.store.catalogue.searchProgrammes(search(prefix))).toEqual(
        await inThread(search(prefix)),
      );
    }
    expect((await temp.store.catalogue.searchProgrammes(search('show'))).length).toBe(5);
    expect(started).toHaveLength(1);
    expect(String(started[0]?.entry)).toMatch(/\/src\/storage\/sqlite\/search-worker-thread\.ts$/);
  });

  it('sends each hit whole, as the values of a fixed order', async () => {
    const hits = await createSqliteProgrammeSearch(temp.store.db)(search('show'));
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(hitFrom(hitValues(hit))).toStrictEqual(hit);
  });

  it('failing, fails the searches waiting for it; the next search starts another', async () => {
    expect(await temp.store.catalogue.searchProgrammes(search('show'))).toHaveLength(5);
    const first = started[0]?.worker;
    if (first === undefined) throw new Error('no thread');
    // Asked of a thread already stopping: it never answers.
    const stopping = first.terminate();
    const waiting = temp.store.catalogue.searchProgrammes(search('show'));
    await stopping;
    await expect(waiting).rejects.toThrow(/search thread stopped/);
    expect(await temp.store.catalogue.searchProgrammes(search('17'))).toHaveLength(1);
    expect(started).toHaveLength(2);
  });

  it('sends an error of the search back with its SQLite code', async () => {
    expect(await temp.store.catalogue.searchProgrammes(search('show'))).toHaveLength(5);
    // The catalogue's tables gone under the thread: its next read fails in SQLite.
    await temp.sql('DROP TABLE catalogue.text_words');
    await expect(temp.store.catalogue.searchProgrammes(search('sho'))).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
      message: expect.stringMatching(/text_words/),
    });
  });
});
