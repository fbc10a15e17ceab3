import { countOf } from '../../domain/plural.js';
import {
  MAX_WEBHOOK_CHANNELS,
  MAX_WEBHOOK_URL_LENGTH,
  WEBHOOK_ATTEMPTS_KEPT,
  webhookState,
  type Webhook,
  type WebhookAttempt,
} from '../../domain/webhook.js';
import { html, type SafeHtml } from '../html.js';
import { channelPicker, defaultSubmit, type ChannelPickerView } from './channel-picker.js';
import { confirmStepPage } from './confirm-page.js';
import { formErrors } from './form-errors.js';
import { formatInstant } from './format.js';
import { page } from './layout.js';

/** A webhook with its newest attempt, as the account page lists it. */
export interface WebhookRowView {
  webhook: Webhook;
  lastAttempt: WebhookAttempt | null;
}

function filterText(webhook: Webhook): string {
  return webhook.filter.kind === 'country'
    ? `every channel of ${webhook.filter.country}`
    : `${countOf(webhook.filter.channelIds.length, 'chosen channel')}`;
}

/**
 * How a webhook stands, in words: active, retrying since when, disabled and why, or waiting
 * while the account may not call the API (deliveries resume when it may again).
 */
export function stateText(webhook: Webhook, accountCanCall: boolean): SafeHtml {
  const state = webhookState(webhook);
  if (state.kind === 'disabled') {
    return html`<strong class="error">Disabled</strong> ${formatInstant(state.at)}: ${state.reason}`;
  }
  if (!accountCanCall) {
    return html`<strong>Waiting</strong>: your account cannot call the API now; deliveries resume
      when it can.`;
  }
  if (state.kind === 'retrying') {
    return html`<strong>Retrying</strong> since ${formatInstant(state.since)} (${state.failures}
      failed, next try ${formatInstant(state.nextAttemptAt)})`;
  }
  return html`<strong>Active</strong>`;
}

function attemptOutcome(attempt: WebhookAttempt): SafeHtml | string {
  if (attempt.kind === 'note') return attempt.error ?? '';
  if (attempt.error === null) return html`<span class="ok-text">HTTP ${attempt.status}</span>`;
  return html`<span class="error">${attempt.error}</span>`;
}

function attemptWhat(attempt: WebhookAttempt): string {
  if (attempt.kind === 'test') return 'Test request';
  if (attempt.kind === 'note') return 'Note';
  return `${countOf(attempt.changes, 'change')} (${attempt.firstSeq}–${attempt.lastSeq})`;
}

/** The webhooks section of the account page. */
export function webhooksSection(
  rows: readonly WebhookRowView[],
  cap: number,
  accountCanCall: boolean,
): SafeHtml {
  const lines = rows.map(
    ({ webhook, lastAttempt }) =>
      html`<tr>
        <td data-label="URL"><code>${webhook.url}</code></td>
        <td data-label="Changes of">${filterText(webhook)}</td>
        <td data-label="State">${stateText(webhook, accountCanCall)}</td>
        <td data-label="Last attempt">
          ${
            lastAttempt === null
              ? html`<span class="muted">none yet</span>`
              : html`${formatInstant(lastAttempt.at)}: ${attemptOutcome(lastAttempt)}`
          }
        </td>
        <td class="actions">
          <a
            class="button secondary small"
            href="/account/webhooks/${webhook.id}"
            aria-label="Delivery log of webhook ${webhook.url}"
            >Log</a
          >
          <a
            class="button danger small"
            href="/account/webhooks/${webhook.id}/delete"
            aria-label="Delete webhook ${webhook.url}"
            >Delete</a
          >
        </td>
      </tr>`,
  );
  return html`<section class="card" id="webhooks">
    <h2>Webhooks</h2>
    <p>
      After each guide update, Onair POSTs what changed on your channels to your URL, signed with
      the webhook's secret. See <a href="/docs#webhooks">how to check the signature</a>.
    </p>
    ${
      rows.length === 0
        ? html`<p class="muted">No webhooks yet.</p>`
        : html`<table class="keys">
            <thead>
              <tr>
                <th>URL</th>
                <th>Changes of</th>
                <th>State</th>
                <th>Last attempt</th>
                <th><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${lines}
            </tbody>
          </table>`
    }
    ${
      rows.length >= cap
        ? html`<p class="muted">
            You have ${cap} webhooks, the most an account can hold. Delete one to create another.
          </p>`
        : html`<p><a class="button" href="/account/webhooks/new">New webhook</a></p>`
    }
  </section>`;
}

/** What the webhook form shows: the values typed so far, the channels chosen, a search's finds. */
export interface WebhookFormView extends Omit<ChannelPickerView, 'kind'> {
  url: string;
  filterKind: ChannelPickerView['kind'];
  /** A refusal of the whole form (the webhook limit). */
  error?: string;
  /** Every refused field at once, each shown by its input. */
  fieldErrors?: Partial<Record<WebhookField, string>>;
}

/** The fields of the webhook form that can be refused, and the element each message is for. */
type WebhookField = 'url' | 'filter';
const WEBHOOK_FIELD_IDS: Record<WebhookField, string> = {
  url: 'webhook-url',
  filter: 'webhook-channels',
};

/**
 * Create a webhook. Works without scripts: "Search" sends the whole form back here by GET (what
 * is chosen stays chosen), "Create" posts it.
 */
export function webhookFormPage(view: WebhookFormView): SafeHtml {
  const refused = formErrors(
    WEBHOOK_FIELD_IDS,
    view.fieldErrors ?? {},
    'The webhook is not created:',
  );
  const urlError = refused.field('url');
  const filterError = refused.field('filter');
  const refusedTitle = view.error !== undefined || refused.summary !== '';
  return page(
    {
      title: refusedTitle ? 'Not created: New webhook' : 'New webhook',
      signedIn: true,
      scripts: ['/assets/account.js'],
    },
    html`${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
      ${refused.summary}
      <section class="card">
        <h1>New webhook</h1>
        <form method="post" action="/account/webhooks" class="feed-form">
          ${defaultSubmit('Create webhook')}
          <label for="webhook-url">URL to send the changes to</label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            maxlength="${MAX_WEBHOOK_URL_LENGTH}"
            value="${view.url}"
            placeholder="https://example.com/onair-changes"
            required
            ${urlError.attributes}
          />
          ${urlError.message}
          <p class="muted">
            An https address on the internet. Onair POSTs JSON to it and counts any 2xx answer as
            delivered.
          </p>
          <fieldset
            id="webhook-channels"
            ${view.fieldErrors?.filter === undefined ? '' : html`aria-describedby="webhook-channels-error"`}
          >
            <legend>Changes of</legend>
            ${filterError.message}
            ${channelPicker(
              { ...view, kind: view.filterKind },
              {
                choice: 'filter',
                countryId: 'webhook-country',
                channelsLabel: `Channels I choose (at most ${MAX_WEBHOOK_CHANNELS})`,
                searchAction: '/account/webhooks/new',
                searchMethod: 'post',
              },
            )}
          </fieldset>
          <div class="actions-row form-end">
            <button type="submit">Create webhook</button>
            <a class="button secondary" href="/account#webhooks">Cancel</a>
          </div>
        </form>
      </section>`,
  );
}

/**
 * The new webhook's secret, shown once: the GET after the POST that made it takes it from the
 * shown-once holder, so a reload finds nothing.
 */
export function webhookSecretPage(webhook: Webhook, secret: string): SafeHtml {
  return page(
    { title: 'Webhook created', signedIn: true, scripts: ['/assets/account.js'] },
    html`<section class="card">
      <h1>Your new webhook</h1>
      <p>Changes of ${filterText(webhook)} go to <code>${webhook.url}</code> from now on.</p>
      <p class="warning">
        <strong>Copy its secret now.</strong> Your receiver checks each request's
        <code>Onair-Signature</code> header with it. It is shown only this once; reloading this page
        will not show it again.
      </p>
      <div class="secret">
        <code id="webhook-secret" data-secret>${secret}</code>
        <button type="button" class="secondary" data-copy-target="webhook-secret">Copy</button>
      </div>
      <form method="post" action="/account/webhooks/${webhook.id}/test" class="actions-row">
        <button type="submit">Send a test request</button>
        <a class="button secondary" href="/account#webhooks">Back to your account</a>
      </form>
    </section>`,
  );
}

/** A webhook: how it stands, a test request, and its last attempts. */
export function webhookPage(
  webhook: Webhook,
  attempts: readonly WebhookAttempt[],
  accountCanCall: boolean,
  notice?: string,
): SafeHtml {
  return page(
    { title: 'Webhook', signedIn: true },
    html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
      <section class="card">
        <h1>Webhook</h1>
        <dl class="facts">
          <dt>URL</dt>
          <dd><code>${webhook.url}</code></dd>
          <dt>Changes of</dt>
          <dd>${filterText(webhook)}</dd>
          <dt>Created</dt>
          <dd>${formatInstant(webhook.createdAt)}</dd>
          <dt>State</dt>
          <dd>${stateText(webhook, accountCanCall)}</dd>
          <dt>Up to date with</dt>
          <dd>
            change ${webhook.deliveredSeq} of the change log (the <code>seq</code> of
            <code>/api/v1/changes</code>): the changes after it go with the next guide update
          </dd>
        </dl>
        ${
          webhook.disabledAt === null
            ? ''
            : html`<form method="post" action="/account/webhooks/${webhook.id}/enable">
                <p>
                  Fixed what made it fail? Turn it back on: it is tried at once and sends the
                  changes it missed, those the change log still holds.
                </p>
                <button type="submit">Turn back on</button>
              </form>`
        }
        <form method="post" action="/account/webhooks/${webhook.id}/test" class="actions-row">
          <button type="submit" class="secondary">Send a test request</button>
          <a class="button danger" href="/account/webhooks/${webhook.id}/delete">Delete</a>
          <a class="button secondary" href="/account#webhooks">Back to your account</a>
        </form>
      </section>
      <section class="card" id="attempts">
        <h2>Last ${WEBHOOK_ATTEMPTS_KEPT} attempts</h2>
        ${
          attempts.length === 0
            ? html`<p class="muted">
                No attempts yet: the first comes after the next guide update.
              </p>`
            : html`<table class="keys">
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>What</th>
                    <th>Answer</th>
                    <th>Took</th>
                  </tr>
                </thead>
                <tbody>
                  ${attempts.map(
                    (attempt) =>
                      html`<tr>
                        <td data-label="Time">${formatInstant(attempt.at)}</td>
                        <td data-label="What">${attemptWhat(attempt)}</td>
                        <td data-label="Answer">${attemptOutcome(attempt)}</td>
                        <td data-label="Took">
                          ${attempt.kind === 'note' ? '' : `${attempt.durationMs} ms`}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>`,
  );
}

/** Asks before a webhook is deleted. */
export function deleteWebhookConfirmPage(webhook: Webhook): SafeHtml {
  return confirmStepPage({
    title: 'Delete this webhook?',
    question: html`Delete the webhook to <code>${webhook.url}</code>?`,
    consequence:
      'Nothing more is sent to it from the moment you confirm, and its log is deleted. This ' +
      'cannot be undone.',
    action: `/account/webhooks/${webhook.id}/delete`,
    button: 'Delete webhook',
    buttonLabel: `Delete webhook ${webhook.url}`,
    cancel: '/account#webhooks',
  });
}
