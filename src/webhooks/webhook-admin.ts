import type { AuditActor, AuditEvent } from '../domain/account.js';
import { isoCountryNote } from '../domain/country.js';
import {
  checkWebhookFilter,
  generateWebhookSecret,
  WebhookSettingsError,
  type Webhook,
  type WebhookFilter,
} from '../domain/webhook.js';
import type { Store } from '../storage/store.js';
import {
  checkWebhookTarget,
  systemResolver,
  type Resolver,
  type WebhookUrlPolicy,
} from './webhook-target.js';

/** A webhook with its secret: the only moment the secret is shown. */
export interface IssuedWebhook {
  webhook: Webhook;
  secret: string;
}

/** What making and removing webhooks needs. */
export interface WebhookAdminDeps {
  store: Pick<Store, 'webhooks' | 'accounts' | 'changes' | 'feeds'>;
  policy: WebhookUrlPolicy;
  resolve?: Resolver;
}

/** The filter checked, and its channels found in the catalogue. */
async function checkedFilter(
  store: WebhookAdminDeps['store'],
  filter: WebhookFilter,
): Promise<WebhookFilter> {
  const checked = checkWebhookFilter(filter);
  const found = await store.feeds.lineupChannels(checked);
  if (checked.kind === 'country') {
    if (found.length === 0) {
      throw new WebhookSettingsError(
        `no channels in country ${checked.country}${isoCountryNote(checked.country)}`,
      );
    }
  } else if (found.length !== checked.channelIds.length) {
    const known = new Set(found.map((c) => c.id));
    const missing = checked.channelIds.find((id) => !known.has(id));
    throw new WebhookSettingsError(`no channel with id ${missing}`);
  }
  return checked;
}

/** Why a webhook's URL and why its filter are refused, each checked; null for one that is fine. */
export interface WebhookSettingsProblems {
  url: WebhookSettingsError | null;
  filter: WebhookSettingsError | null;
}

/**
 * createAuditedWebhook's refusal: the URL and the filter are each checked, so a form can say
 * everything that is wrong at once, by its field; the message joins them for the CLI.
 */
export class WebhookSettingsRefused extends WebhookSettingsError {
  override name = 'WebhookSettingsRefused';

  constructor(readonly problems: WebhookSettingsProblems) {
    const said = [problems.url, problems.filter].flatMap((p) => (p === null ? [] : [p.message]));
    super(said.join('; '));
  }
}

/**
 * Creates a webhook (at most MAX_WEBHOOKS_PER_ACCOUNT, else WebhookLimitError) after checking
 * its URL by the delivery rules and its channels, both (WebhookSettingsRefused says what is
 * wrong with either), and records it. It gets the changes logged from now on: `deliveredSeq`
 * starts at the log's newest record.
 */
export async function createAuditedWebhook(
  deps: WebhookAdminDeps,
  accountId: string,
  settings: { url: string; filter: WebhookFilter },
  actor: AuditActor,
  nowMs: number,
): Promise<IssuedWebhook> {
  const refusal = (error: unknown): WebhookSettingsError => {
    if (error instanceof WebhookSettingsError) return error;
    throw error;
  };
  const [filter, target] = await Promise.all([
    checkedFilter(deps.store, settings.filter).catch(refusal),
    checkWebhookTarget(settings.url, deps.policy, deps.resolve ?? systemResolver).catch(refusal),
  ]);
  if (filter instanceof WebhookSettingsError || target instanceof WebhookSettingsError) {
    throw new WebhookSettingsRefused({
      url: target instanceof WebhookSettingsError ? target : null,
      filter: filter instanceof WebhookSettingsError ? filter : null,
    });
  }
  const { bounds } = await deps.store.changes.read({
    after: Number.MAX_SAFE_INTEGER,
    limit: 1,
    country: null,
    channels: null,
  });
  const secret = generateWebhookSecret();
  const webhook = await deps.store.webhooks.createWebhook(
    { accountId, url: target.url.href, secret, filter, deliveredSeq: bounds.newest },
    nowMs,
  );
  await auditWebhook(deps.store, webhook, actor, 'webhook.created', nowMs);
  return { webhook, secret };
}

/** Records `action` on `webhook` in its account's audit log. */
function auditWebhook(
  store: Pick<Store, 'accounts'>,
  webhook: Webhook,
  actor: AuditActor,
  action: string,
  nowMs: number,
): Promise<AuditEvent> {
  const details = { webhookId: webhook.id };
  return store.accounts.recordAudit(
    { accountId: webhook.accountId, actor, action, details },
    nowMs,
  );
}

export async function deleteAuditedWebhook(
  store: Pick<Store, 'webhooks' | 'accounts'>,
  webhook: Webhook,
  actor: AuditActor,
  nowMs: number,
): Promise<boolean> {
  const deleted = await store.webhooks.deleteWebhook(webhook.id);
  if (deleted) await auditWebhook(store, webhook, actor, 'webhook.deleted', nowMs);
  return deleted;
}

/**
 * Turns a disabled webhook back on (see WebhookStore.enableWebhook): it is tried at once and
 * sends what it missed that the change log still holds. False when it was not disabled.
 */
export async function enableAuditedWebhook(
  store: Pick<Store, 'webhooks' | 'accounts'>,
  webhook: Webhook,
  actor: AuditActor,
  nowMs: number,
): Promise<boolean> {
  const enabled = await store.webhooks.enableWebhook(webhook.id, nowMs);
  if (enabled) await auditWebhook(store, webhook, actor, 'webhook.enabled', nowMs);
  return enabled;
}
