import { countOf } from '../../domain/plural.js';
import type { AccountStatus } from '../../accounts/account-service.js';
import type { ApiKey } from '../../domain/account.js';
import type { Feed } from '../../domain/feed.js';
import { feedsSection } from './feed-pages.js';
import { webhooksSection, type WebhookRowView } from './webhook-pages.js';
import { html, type SafeHtml } from '../html.js';
import { formatInstant } from './format.js';
import { confirmStepPage } from './confirm-page.js';
import { page } from './layout.js';

export interface AccountView {
  status: AccountStatus;
  nowMs: number;
  /** Keys not revoked, oldest first. */
  keys: ApiKey[];
  keyCap: number;
  /** The account's guide feeds, oldest first. */
  feeds: Feed[];
  feedCap: number;
  /** The account's webhooks with their newest attempt, oldest first. */
  webhooks: WebhookRowView[];
  webhookCap: number;
  usage: { requests: number; limited: number };
  apiBase: string;
  notice?: string;
  error?: string;
  /** Why the key name typed was refused: shown at the top, linked to the key-name field. */
  keyNameError?: string;
}

const dash = html`<span class="muted">—</span>`;

/** Whether the API may be called now, and until when, in plain words. */
function accessSentence(status: AccountStatus, nowMs: number): SafeHtml {
  if (status.eligibleNow && status.effectiveUntil !== null) {
    const paid = status.accessUntil !== null && status.accessUntil === status.effectiveUntil;
    return html`<p class="status ok">
      <strong>You can call the API</strong> until ${formatInstant(status.effectiveUntil)}
      (${paid ? 'paid access' : 'trial'}).
    </p>`;
  }
  if (status.refusal === 'ACCOUNT_DISABLED') {
    return html`<p class="status bad">
      <strong>This account is disabled.</strong> API calls are refused; contact the operator.
    </p>`;
  }
  if (status.refusal === 'EMAIL_NOT_VERIFIED') {
    return html`<p class="status bad">
      <strong>Your e-mail address is not verified yet.</strong>
    </p>`;
  }
  const ended =
    status.effectiveUntil !== null && status.effectiveUntil <= nowMs
      ? html` Access ended ${formatInstant(status.effectiveUntil)}.`
      : '';
  return html`<p class="status bad">
    <strong>The API refuses this account's keys now.</strong>${ended} Contact us to arrange paid
    access.
  </p>`;
}

/** A key as people tell it apart: its name, and the last four characters of its secret. */
const keyLabel = (key: ApiKey) => html`“${key.name}” (ending <code>${key.lastFour}</code>)`;

function keyRow(key: ApiKey): SafeHtml {
  return html`<tr>
    <td data-label="Name">${key.name}</td>
    <td data-label="Key"><code>${key.prefix}…${key.lastFour}</code></td>
    <td data-label="Created">${formatInstant(key.createdAt)}</td>
    <td data-label="Last used">
      ${key.lastUsedAt === null ? 'never' : formatInstant(key.lastUsedAt)}
    </td>
    <td class="actions">
      <a
        class="button danger small"
        href="/account/keys/${key.id}/revoke"
        aria-label="Revoke key ${key.name}"
        >Revoke</a
      >
    </td>
  </tr>`;
}

/** The account page: access, keys, usage, sessions. */
export function accountPage(view: AccountView): SafeHtml {
  const { status } = view;
  const full = view.keys.length >= view.keyCap;
  return page(
    { title: 'Your account', signedIn: true },
    html`${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
      ${
        view.keyNameError
          ? html`<p class="error" role="alert" id="key-name-error">${view.keyNameError}</p>`
          : ''
      }
      <section class="card">
        <h1>Your account</h1>
        ${accessSentence(status, view.nowMs)}
        <dl class="facts">
          <dt>E-mail</dt>
          <dd>${status.email}</dd>
          <dt>Verified</dt>
          <dd>${status.verifiedAt === null ? 'not yet' : formatInstant(status.verifiedAt)}</dd>
          <dt>Trial ends</dt>
          <dd>${status.trialEndsAt === null ? dash : formatInstant(status.trialEndsAt)}</dd>
          <dt>Paid access until</dt>
          <dd>${status.accessUntil === null ? dash : formatInstant(status.accessUntil)}</dd>
          <dt>Rate limit</dt>
          <dd>${countOf(status.rateLimit, 'request')} per second</dd>
          <dt>Last 24 hours</dt>
          <dd>
            ${countOf(view.usage.requests, 'request')}, ${view.usage.limited} refused by the rate
            limit
          </dd>
        </dl>
      </section>
      <section class="card" id="keys">
        <h2>API keys</h2>
        ${
          view.keys.length === 0
            ? html`<p class="muted">No keys yet. Create one to call the API.</p>`
            : html`<table class="keys">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Key</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th><span class="sr-only">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${view.keys.map(keyRow)}
                </tbody>
              </table>`
        }
        ${
          full
            ? html`<p class="muted">
                You have ${view.keyCap} keys, the most an account can hold. Revoke one to create
                another.
              </p>`
            : html`<form method="post" action="/account/keys" class="row">
                <label for="key-name">Key name</label>
                <input
                  id="key-name"
                  name="name"
                  maxlength="100"
                  placeholder="e.g. production"
                  required
                  ${
                    view.keyNameError
                      ? html`aria-invalid="true" aria-describedby="key-name-error"`
                      : ''
                  }
                />
                <button type="submit">Create key</button>
              </form>`
        }
      </section>
      ${feedsSection(view.feeds, view.feedCap)}
      ${webhooksSection(view.webhooks, view.webhookCap, status.eligibleNow)}
      <section class="card">
        <h2>Try it</h2>
        <pre><code>curl -H "Authorization: Bearer YOUR_KEY" ${view.apiBase}/countries</code></pre>
      </section>
      <section class="card">
        <h2>Sessions</h2>
        <p>Signed in on a device you no longer use? End every session, this one included.</p>
        <a class="button secondary" href="/account/sessions/end-all">Sign out everywhere</a>
      </section>`,
  );
}

/**
 * The new key, shown once: the GET after the POST that made it takes the secret from the
 * shown-once holder, so a reload finds nothing (and the page is never stored: no-store).
 */
export function keyCreatedPage(key: ApiKey, secret: string, apiBase: string): SafeHtml {
  return page(
    { title: 'Key created', signedIn: true, scripts: ['/assets/account.js'] },
    html`<section class="card">
      <h1>Your new key “${key.name}”</h1>
      <p class="warning">
        <strong>Copy it now.</strong> For your safety it is shown only this once; we keep only a
        fingerprint of it. Reloading this page will not show it again.
      </p>
      <div class="secret">
        <code id="new-key" data-secret>${secret}</code>
        <button type="button" class="secondary" data-copy-target="new-key">Copy</button>
      </div>
      <p>Use it like this:</p>
      <pre><code data-secret>curl -H "Authorization: Bearer ${secret}" ${apiBase}/countries</code></pre>
      <p><a class="button" href="/account">Back to your account</a></p>
    </section>`,
  );
}

/** Asks before a key is revoked, naming it. */
export function revokeKeyConfirmPage(key: ApiKey): SafeHtml {
  return confirmStepPage({
    title: 'Revoke this key?',
    question: html`Revoke the key ${keyLabel(key)}, created ${formatInstant(key.createdAt)}, last
    used ${key.lastUsedAt === null ? 'never' : formatInstant(key.lastUsedAt)}?`,
    consequence:
      'Requests made with it are refused from the moment you confirm. This cannot be undone; ' +
      'a program using it needs a new key.',
    action: `/account/keys/${key.id}/revoke`,
    button: 'Revoke key',
    buttonLabel: `Revoke key ${key.name}`,
    cancel: '/account',
  });
}

/** Asks before every session of the account ends. */
export function endAllSessionsConfirmPage(): SafeHtml {
  return confirmStepPage({
    title: 'Sign out everywhere?',
    question: html`End every session of your account, on every device,
      <strong>this one included</strong>?`,
    consequence:
      'You will need a new sign-in link on each device. Your API keys and feeds keep working.',
    action: '/account/sessions/end-all',
    button: 'Sign out everywhere',
    cancel: '/account',
  });
}
