import type * as WorkerThreads from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ingestXmltv } from '../../catalogue/ingest/ingest-xmltv.js';
import { openTempStore, type TempStore } from '../../../test/helpers/temp-store.js';

// The real Worker, but the test keeps each thread the runner starts, how it was started, and
// may watch it from its start.
const threads = vi.hoisted(() => ({
  started: [] as { worker: WorkerThreads.Worker; entry: unknown }[],
  onStart: null as ((worker: WorkerThreads.Worker) => void) | null,
}));
vi.mock('node:worker_threads', async (original) => {
  const real = await original<typeof WorkerThreads>();
  class KeptWorker extends real.Worker {
    constructor(entry: string | URL, options?: WorkerThreads.WorkerOptions) {
      super(entry, options);
      threads.started.push({ worker: this, entry });
      threads.onStart?.(this);
    }
  }
  return { ...real, Worker: KeptWorker };
});
const started = threads.started;

const NOW = Date.UTC(2026, 10, 20);

/** A guide of one channel and `count` programmes, enough for several insert batches. */
function guide(channel: string, count: number): Buffer {
  const programmes = Array.from({ length: count }, (_, i) => {
    const start = new Date(NOW + i * 1_800_000).toISOString().replace(/\D/g, '').slice(0, 14);
    return `<programme channel="${channel}" start="${start} +0000"><title>Show ${i}</title></programme>`;
  });
  return Buffer.from(
    `<tv><channel id="${channel}"><display-name>${channel}</display-name></channel>${programmes.join('')}</tv>`,
  );
}

const options = { country: 'IE', assumeOffsetMinutes: 0, nowMs: NOW };

let temp: TempStore;
beforeEach(() => {
  temp = openTempStore(NOW);
  started.length = 0;
  threads.onStart = null;
});
afterEach(async () => {
  await temp.dispose();
});

describe('the staging worker thread', () => {
  it('runs its entry file, the TypeScript source under Vitest', async () => {
    await ingestXmltv(temp.store.ingest, { name: 'a.xml', data: guide('a.ie', 3) }, options);
    expect(started).toHaveLength(1);
    const entry = started[0]?.entry;
    expect(entry).toBeInstanceOf(URL);
    expect(String(entry)).toMatch(/\/src\/storage\/sqlite\/staging-worker-thread\.ts$/);
  });

  it('dying mid-ingest fails the ingest and leaves the catalogue as it was; the next one works', async () => {
    await ingestXmltv(
      temp.store.ingest,
      { name: 'before.xml', data: guide('before.ie', 5) },
      options,
    );
    const before = temp.store.db.prepare('SELECT * FROM programmes ORDER BY id').all();
    started.length = 0;

    // The thread's first answer is to its first script; the second, to the first insert batch.
    let answers = 0;
    threads.onStart = (thread) =>
      thread.on('message', () => {
        if (++answers === 2) void thread.terminate();
      });
    await expect(
      ingestXmltv(temp.store.ingest, { name: 'cut.xml', data: guide('cut.ie', 20_000) }, options),
    ).rejects.toThrow(/the ingest staging worker stopped/);
    expect(started).toHaveLength(1);
    expect(answers).toBeGreaterThanOrEqual(2);
    threads.onStart = null;

    expect(temp.store.db.prepare('SELECT * FROM programmes ORDER BY id').all()).toEqual(before);
    expect(temp.store.db.prepare(`SELECT count(*) FROM channels`).pluck().get()).toBe(1);
    const again = await ingestXmltv(
      temp.store.ingest,
      { name: 'after.xml', data: guide('after.ie', 5) },
      options,
    );
    expect(again.programmesStored).toBe(5);
    expect(temp.store.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(10);
  });

  // The file is read while the thread starts: a thread lost before it made the staging tables
  // fails the ingest with that failure, for a guide read whole before (one batch) and after.
  it.each([3, 20_000])(
    'stopping before it made the staging tables fails the ingest of %i programmes cleanly',
    async (count) => {
      threads.onStart = (thread) => void thread.terminate();
      await expect(
        ingestXmltv(temp.store.ingest, { name: 'cut.xml', data: guide('cut.ie', count) }, options),
      ).rejects.toThrow(/the ingest staging worker stopped/);
      threads.onStart = null;
      expect(temp.store.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(0);
      const again = await ingestXmltv(
        temp.store.ingest,
        { name: 'after.xml', data: guide('after.ie', 5) },
        options,
      );
      expect(again.programmesStored).toBe(5);
    },
  );
});
