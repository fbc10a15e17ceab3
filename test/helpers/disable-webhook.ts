import type { Store } from '../../src/storage/store.js';

/**
 * Disables a webhook as its delivery does after a day of failures: claimed, then finished with
 * the outcome that disables it (its position kept).
 */
export async function disableWebhook(
  store: Pick<Store, 'webhooks'>,
  id: string,
  nowMs: number,
): Promise<void> {
  const claimed = await store.webhooks.claimWebhook(id, {
    holder: 'test',
    nowMs,
    leaseMs: 1000,
  });
  if (claimed === null) throw new Error(`webhook ${id} could not be claimed`);
  await store.webhooks.finishDelivery(
    id,
    'test',
    {
      deliveredSeq: claimed.webhook.deliveredSeq,
      failures: 40,
      firstFailureAt: nowMs - 86_400_000,
      nextAttemptAt: nowMs,
      disabledAt: nowMs,
      disabledReason: 'failed for 24 hours',
    },
    null,
  );
}
