import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { describeSourceFlag, sourceFlags, warningDue } from '../domain/source-health.js';
import { displayLocation, DownloadError } from '../catalogue/ingest/guide-download.js';
import { refreshSource, type RefreshDeps } from './source-refresh.js';
import { reportPassFailure } from '../storage/errors.js';

/** The server's loop that refreshes due sources. */
export interface SourceScheduler {
  /** One pass: refreshes every due source this instance can claim, then checks health. */
  tick(): Promise<void>;
  /** Stops the loop, aborts a download in progress and waits for the pass to end. */
  stop(): Promise<void>;
}

/** A lease holder name unique to this process. */
export function leaseHolderName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Starts the loop: every `checkEveryMs` it refreshes the sources that are due, one at a time.
 * Each claim is atomic in the database, so over one database (several instances, or a CLI
 * `sources refresh` beside a server) exactly one process refreshes a given source. Flagged
 * sources (overdue, schedule ending, failing) are logged when a flag appears and hourly after,
 * by one process over the database: the warning is recorded on the source's row as it is logged.
 */
export function startSourceScheduler(
  deps: Omit<RefreshDeps, 'signal'>,
  checkEveryMs: number,
): SourceScheduler {
  const stopping = new AbortController();
  const refreshDeps: RefreshDeps = { ...deps, signal: stopping.signal };
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const checkHealth = async () => {
    const now = deps.now();
    for (const source of await deps.store.sources.listSources()) {
      const flags = sourceFlags(source, now);
      const seen = { flags: source.warnedFlags, at: source.warnedAt };
      const due = warningDue(seen, flags, now);
      // Another process recorded (and logged) it first when the record is no longer `seen`.
      if (due === null || !(await deps.store.sources.recordWarning(source.id, seen, due.record))) {
        continue;
      }
      if (due.log) {
        deps.log.warn(
          { source: source.id, location: displayLocation(source.location), flags },
          `source needs attention: ${flags.map((f) => describeSourceFlag(f, source)).join('; ')}`,
        );
      }
    }
  };

  const pass = async () => {
    const now = deps.now();
    const due = (await deps.store.sources.listSources()).filter(
      (s) => s.nextRunAt <= now && (s.leaseUntil === null || s.leaseUntil <= now),
    );
    for (const source of due) {
      if (stopping.signal.aborted) return;
      await refreshSource(refreshDeps, source.id, { force: false });
    }
    await checkHealth();
  };

  const tick = () => {
    running ??= pass()
      .catch((error: unknown) => {
        reportPassFailure(deps.log, 'source refresh pass', error);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const schedule = () => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      void tick().then(schedule);
    }, checkEveryMs);
    timer.unref();
  };
  // The first pass right away: sources due while the server was down are not kept waiting.
  void tick().then(schedule);

  return {
    tick,
    async stop() {
      stopping.abort(
        new DownloadError('stopped: the server is shutting down', { retryable: false }),
      );
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
