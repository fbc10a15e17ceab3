import { deliverWebhook, type DeliveryDeps, type DeliveryResult } from './webhook-delivery.js';
import { reportPassFailure } from '../storage/errors.js';

/** Webhooks delivered side by side by one process (each webhook's batches stay in order). */
const PARALLEL_DELIVERIES = 4;
/** Due webhooks read per query. */
const DUE_PAGE = 100;
/** How often the catalogue's data version is compared, to deliver soon after an ingest. */
const NUDGE_CHECK_MS = 1_000;

/** The server's loop that delivers webhooks. */
export interface WebhookScheduler {
  /** One pass: delivers the due webhooks this process can claim, until none is left. */
  tick(): Promise<void>;
  /** Stops the loop and waits for the deliveries in flight (each within its timeout). */
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  /** How often to look for due webhooks anyway. */
  checkMs: number;
  /** The catalogue's data version (Store.versions): a move means an ingest committed. */
  catalogueVersion?: () => Promise<string>;
}

/** Delivers what is due now, PARALLEL_DELIVERIES at a time; the number of claims made. */
export async function deliverDue(
  deps: DeliveryDeps,
  stopped: () => boolean = () => false,
): Promise<Map<string, DeliveryResult>> {
  const results = new Map<string, DeliveryResult>();
  for (;;) {
    // Only the bounds: nothing is after the largest seq.
    const { bounds } = await deps.store.changes.read({
      after: Number.MAX_SAFE_INTEGER,
      limit: 1,
      country: null,
      channels: null,
    });
    const due = (await deps.store.webhooks.dueWebhooks(deps.now(), bounds.newest, DUE_PAGE)).filter(
      // A webhook handled in this pass waits for the next one unless its batch went out (a
      // full batch may have more behind it).
      (id) =>
        !results.has(id) || results.get(id) === 'delivered' || results.get(id) === 'skipped-ahead',
    );
    if (due.length === 0 || stopped()) return results;
    let next = 0;
    const worker = async () => {
      while (next < due.length && !stopped()) {
        const id = due[next++] as string;
        let result: DeliveryResult = 'busy';
        try {
          result = await deliverWebhook(deps, id);
        } catch (error) {
          deps.log.error({ err: error, webhook: id }, 'webhook delivery failed in Onair');
        }
        results.set(id, result);
        deps.observe?.(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_DELIVERIES, due.length) }, worker));
    // Another round only when something may be left: a batch went out or ran ahead.
    if (!due.some((id) => results.get(id) === 'delivered' || results.get(id) === 'skipped-ahead')) {
      return results;
    }
  }
}

/**
 * Starts the loop: a pass right away, then whenever a webhook's retry is due, at least every
 * `checkMs`, and within a second of an ingest's commit (by any process: the catalogue's data
 * version moves). Claims are atomic in the database, so over one database (several instances)
 * exactly one process delivers a given webhook at a time.
 */
export function startWebhookScheduler(
  deps: DeliveryDeps,
  options: SchedulerOptions,
): WebhookScheduler {
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let nudgeTimer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  const pass = async () => {
    await deliverDue(deps, () => stopping);
  };

  const schedule = async () => {
    if (stopping) return;
    let delay = options.checkMs;
    try {
      // A retry already due is looked at again a second later, not at once: it came due while
      // this pass finished (a slow turn), or another process holds its lease, and a pass a
      // second is no loop that spins until it is free. Waiting the usual interval instead left
      // such a retry a whole interval late.
      const retryAt = await deps.store.webhooks.nextRetryAt();
      const now = deps.now();
      if (retryAt !== null) delay = Math.min(delay, retryAt > now ? retryAt - now : NUDGE_CHECK_MS);
    } catch {
      // The store is away: look again at the usual interval.
    }
    if (stopping) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => void tick(), delay);
    timer.unref();
  };

  const tick = (): Promise<void> => {
    if (running !== null) {
      // A nudge during a pass: one more pass right after it.
      again = true;
      return running;
    }
    running = pass()
      .catch((error: unknown) => {
        reportPassFailure(deps.log, 'webhook delivery pass', error);
      })
      .finally(() => {
        running = null;
        if (again && !stopping) {
          again = false;
          void tick();
        } else {
          void schedule();
        }
      });
    return running;
  };

  if (options.catalogueVersion !== undefined) {
    const version = options.catalogueVersion;
    let seen: string | null = null;
    const watch = async () => {
      try {
        const current = await version();
        if (seen !== null && current !== seen) void tick();
        seen = current;
      } catch {
        // The store is away: the timer's passes go on.
      }
      if (!stopping) {
        nudgeTimer = setTimeout(() => void watch(), NUDGE_CHECK_MS);
        nudgeTimer.unref();
      }
    };
    void watch();
  }
  // The first pass right away: batches due while the server was down are not kept waiting.
  void tick();

  return {
    tick,
    async stop() {
      stopping = true;
      if (timer !== null) clearTimeout(timer);
      if (nudgeTimer !== null) clearTimeout(nudgeTimer);
      await running;
    },
  };
}
