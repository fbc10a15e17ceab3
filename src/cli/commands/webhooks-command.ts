import { Command } from 'commander';
import type { Account } from '../../domain/account.js';
import { isUuid } from '../../domain/catalogue-ids.js';
import {
  WEBHOOK_ATTEMPTS_KEPT,
  webhookState,
  WebhookSettingsError,
  type Webhook,
  type WebhookAttempt,
  type WebhookFilter,
  webhookUrlForLogs,
} from '../../domain/webhook.js';
import { countOf } from '../../domain/plural.js';
import { WebhookLimitError } from '../../storage/errors.js';
import type { Store } from '../../storage/store.js';
import {
  createAuditedWebhook,
  deleteAuditedWebhook,
  enableAuditedWebhook,
} from '../../webhooks/webhook-admin.js';
import {
  CliError,
  collectChannel,
  isoOrNull,
  printResult,
  ReportedFailure,
  requireChannels,
  withStore,
  type CliContext,
} from '../cli-context.js';
import { parseCountryOption, parseEmail } from '../option-parsers.js';
import { requireAccount } from '../account-output.js';

/**
 * A webhook's URL as every output here shows it, text and --json alike: without its query,
 * which may hold the receiver's own secret (`?sig=…`), as `sources` and `ingest` show guide
 * URLs. The JSON is not an export to recreate a webhook from (its signing secret is never
 * shown again either); the owner saw the whole URL when creating it, and deliveries use the
 * whole URL the store keeps.
 */
/** As the logs show it: without its query (a receiver's token, maybe), `?…` saying one is kept. */
function shownUrl(webhook: Webhook): string {
  return webhookUrlForLogs(webhook.url);
}

/** A webhook as listed and shown: never its secret. */
function webhookJson(webhook: Webhook, account: Account | null) {
  const state = webhookState(webhook);
  return {
    id: webhook.id,
    email: account?.email ?? null,
    url: shownUrl(webhook),
    filter:
      webhook.filter.kind === 'country'
        ? { country: webhook.filter.country }
        : { channels: webhook.filter.channelIds },
    state: state.kind,
    createdAt: isoOrNull(webhook.createdAt),
    deliveredSeq: webhook.deliveredSeq,
    failures: webhook.failures,
    retryingSince: isoOrNull(webhook.firstFailureAt),
    nextAttemptAt: state.kind === 'retrying' ? isoOrNull(webhook.nextAttemptAt) : null,
    disabledAt: isoOrNull(webhook.disabledAt),
    disabledReason: webhook.disabledReason,
  };
}

function attemptJson(attempt: WebhookAttempt) {
  return {
    at: isoOrNull(attempt.at),
    kind: attempt.kind,
    status: attempt.status,
    error: attempt.error,
    durationMs: attempt.durationMs,
    changes: attempt.changes,
    firstSeq: attempt.firstSeq,
    lastSeq: attempt.lastSeq,
  };
}

function filterText(filter: WebhookFilter): string {
  return filter.kind === 'country'
    ? `country ${filter.country}`
    : countOf(filter.channelIds.length, 'channel');
}

function stateText(webhook: Webhook): string {
  const state = webhookState(webhook);
  if (state.kind === 'active') return 'active';
  if (state.kind === 'retrying') {
    return `retrying since ${isoOrNull(state.since)} (${state.failures} failed, next ${isoOrNull(state.nextAttemptAt)})`;
  }
  return `disabled ${isoOrNull(state.at)}: ${state.reason}`;
}

function attemptLine(attempt: WebhookAttempt): string {
  const when = isoOrNull(attempt.at);
  if (attempt.kind === 'note') return `${when}  note: ${attempt.error ?? ''}`;
  const what =
    attempt.kind === 'test'
      ? 'test'
      : `${countOf(attempt.changes, 'change')} (${attempt.firstSeq}–${attempt.lastSeq})`;
  const outcome = attempt.error ?? `HTTP ${attempt.status}`;
  return `${when}  ${what}  ${outcome}  ${attempt.durationMs} ms`;
}

async function requireWebhook(store: Store, id: string): Promise<Webhook> {
  const webhook = isUuid(id.trim()) ? await store.webhooks.findWebhook(id.trim()) : null;
  if (webhook === null) throw new CliError(`no webhook with id ${id}`);
  return webhook;
}

/** Nothing of a command's own is logged: its output is the result. */
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** `onair webhooks …`: accounts' webhooks, their state and their delivery logs. */
export function webhooksCommand(ctx: CliContext): Command {
  const webhooks = new Command('webhooks').description(
    "manage accounts' webhooks (signed POSTs of the change log)",
  );
  const policy = ctx.config.webhooks;

  webhooks
    .command('create')
    .description('create a webhook and print its signing secret (shown only this once)')
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .requiredOption('--url <url>', 'where to POST the changes (https://…)')
    .option('--country <code>', 'the changes of every channel of a country', parseCountryOption)
    .option(
      '--channel <id>',
      'the changes of a channel (Onair or XMLTV id), repeated for more (at most 100)',
      collectChannel,
      [],
    )
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        email: string;
        url: string;
        country?: string;
        channel: string[];
        json?: boolean;
      }) => {
        if ((opts.country === undefined) === (opts.channel.length === 0)) {
          throw new CliError('give either --country or one or more --channel');
        }
        await withStore(ctx, async (store) => {
          const account = await requireAccount(store, opts.email);
          const filter: WebhookFilter =
            opts.country === undefined
              ? { kind: 'channels', channelIds: await requireChannels(store, opts.channel) }
              : { kind: 'country', country: opts.country };
          let issued;
          try {
            issued = await createAuditedWebhook(
              { store, policy },
              account.id,
              { url: opts.url, filter },
              'operator',
              ctx.now(),
            );
          } catch (error) {
            if (error instanceof WebhookSettingsError || error instanceof WebhookLimitError) {
              throw new CliError(error.message);
            }
            throw error;
          }
          const data = { ...webhookJson(issued.webhook, account), secret: issued.secret };
          printResult(ctx, opts.json === true, data, () =>
            [
              `Created webhook ${issued.webhook.id} for ${account.email}: ${filterText(issued.webhook.filter)} → ${shownUrl(issued.webhook)}`,
              // As `keys create` prints a key: once, for the receiver that checks the signatures.
              'Its signing secret, for the receiver; store it now, it will not be shown again:',
              issued.secret,
            ].join('\n'),
          );
        });
      },
    );

  webhooks
    .command('list')
    .description('list webhooks (of one account with --email) and how each stands')
    .option('--email <address>', 'e-mail address of the account', parseEmail)
    .option('--json', 'print JSON')
    .action(async (opts: { email?: string; json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const account = opts.email === undefined ? null : await requireAccount(store, opts.email);
        const list =
          account === null
            ? await store.webhooks.listAllWebhooks()
            : await store.webhooks.listWebhooks(account.id);
        const owners = new Map<string, Account | null>();
        for (const webhook of list) {
          if (!owners.has(webhook.accountId)) {
            owners.set(webhook.accountId, await store.accounts.findAccountById(webhook.accountId));
          }
        }
        const rows = list.map((w) => webhookJson(w, owners.get(w.accountId) ?? null));
        printResult(ctx, opts.json === true, rows, () =>
          list.length === 0
            ? `No webhooks${account === null ? '' : ` for ${account.email}`}.`
            : list
                .map(
                  (w) =>
                    `${w.id}  ${owners.get(w.accountId)?.email ?? '?'}  ${shownUrl(w)}  ${filterText(w.filter)}  ${stateText(w)}`,
                )
                .join('\n'),
        );
      });
    });

  webhooks
    .command('show')
    .description(`show a webhook, how it stands and its last ${WEBHOOK_ATTEMPTS_KEPT} attempts`)
    .argument('<id>', 'id of the webhook (see webhooks list)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const webhook = await requireWebhook(store, id);
        const account = await store.accounts.findAccountById(webhook.accountId);
        const attempts = await store.webhooks.listAttempts(webhook.id);
        const data = { ...webhookJson(webhook, account), attempts: attempts.map(attemptJson) };
        printResult(ctx, opts.json === true, data, () =>
          [
            `Webhook ${webhook.id} of ${account?.email ?? '?'}`,
            `URL:        ${shownUrl(webhook)}`,
            `Changes of: ${filterText(webhook.filter)}`,
            `State:      ${stateText(webhook)}`,
            `Delivered:  up to change ${webhook.deliveredSeq}`,
            attempts.length === 0
              ? 'No attempts yet.'
              : `Last ${countOf(attempts.length, 'attempt')}, newest first:`,
            ...attempts.map((a) => `  ${attemptLine(a)}`),
          ].join('\n'),
        );
      });
    });

  webhooks
    .command('enable')
    .description(
      'turn a disabled webhook back on: it is tried at once and sends what it missed that the change log still holds',
    )
    .argument('<id>', 'id of the webhook (see webhooks list)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const webhook = await requireWebhook(store, id);
        if (!(await enableAuditedWebhook(store, webhook, 'operator', ctx.now()))) {
          ctx.stderr.write(`onair: error: webhook ${webhook.id} is not disabled\n`);
          throw new ReportedFailure('webhook not disabled');
        }
        printResult(
          ctx,
          opts.json === true,
          { id: webhook.id, enabled: true },
          () => `Webhook ${webhook.id} is on again: it is tried at once.`,
        );
      });
    });

  webhooks
    .command('delete')
    .description('delete a webhook: nothing more is sent to it')
    .argument('<id>', 'id of the webhook (see webhooks list)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const webhook = await requireWebhook(store, id);
        await deleteAuditedWebhook(store, webhook, 'operator', ctx.now());
        printResult(
          ctx,
          opts.json === true,
          { id: webhook.id, deleted: true },
          () => `Webhook ${webhook.id} deleted.`,
        );
      });
    });

  webhooks
    .command('test')
    .description('send a webhook one signed request with no changes, and print the answer')
    .argument('<id>', 'id of the webhook (see webhooks list)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      // The delivery code (an HTTP client, address checks) loads only to send.
      const { sendTestRequest } = await import('../../webhooks/webhook-delivery.js');
      await withStore(ctx, async (store) => {
        const webhook = await requireWebhook(store, id);
        const attempt = await sendTestRequest(
          { store, now: ctx.now, log: quiet, policy, timeoutMs: ctx.config.webhooks.timeoutMs },
          webhook,
        );
        // A failure is said once, on stderr; --json still prints the attempt for scripts.
        if (opts.json === true || attempt.error === null) {
          printResult(
            ctx,
            opts.json === true,
            { id: webhook.id, ...attemptJson(attempt) },
            () =>
              `Test request to ${shownUrl(webhook)}: HTTP ${attempt.status} in ${attempt.durationMs} ms.`,
          );
        }
        if (attempt.error !== null) {
          // A server with WEBHOOK_ALLOW_HTTP took the address; this process reads its own.
          const hint =
            webhook.url.startsWith('http:') && !policy.allowHttp
              ? ' (plain http:// is allowed only with WEBHOOK_ALLOW_HTTP=1; set it for this command too)'
              : '';
          ctx.stderr.write(
            `onair: error: the test request to ${shownUrl(webhook)} failed: ${attempt.error}${hint}\n`,
          );
          throw new ReportedFailure('test request failed');
        }
      });
    });

  return webhooks;
}
