import {
  DAYS_AHEAD,
  DAYS_BACK,
  MAX_FEED_NAME_LENGTH,
  MAX_LINEUP_CHANNELS,
  type Feed,
  type FeedSettingsField,
} from '../../domain/feed.js';
import { html, type SafeHtml } from '../html.js';
import { channelPicker, defaultSubmit, type ChannelPickerView } from './channel-picker.js';
import { confirmStepPage } from './confirm-page.js';
import { formErrors } from './form-errors.js';
import { formatInstant } from './format.js';
import { page } from './layout.js';

/** The feeds section of the account page. */
export function feedsSection(feeds: readonly Feed[], cap: number): SafeHtml {
  const rows = feeds.map(
    (feed) =>
      html`<tr>
        <td data-label="Name">${feed.name}</td>
        <td data-label="Channels">
          ${
            feed.lineup.kind === 'country'
              ? `every channel of ${feed.lineup.country}`
              : `${feed.lineup.channelIds.length} chosen`
          }
        </td>
        <td data-label="Days">${feed.daysBack} back, ${feed.daysAhead} ahead</td>
        <td data-label="Created">${formatInstant(feed.createdAt)}</td>
        <td class="actions">
          <a
            class="button secondary small"
            href="/account/feeds/${feed.id}/edit"
            aria-label="Edit feed ${feed.name}"
            >Edit</a
          >
          <a
            class="button secondary small"
            href="/account/feeds/${feed.id}/token"
            aria-label="New URL for feed ${feed.name}"
            >New URL</a
          >
          <a
            class="button danger small"
            href="/account/feeds/${feed.id}/delete"
            aria-label="Delete feed ${feed.name}"
            >Delete</a
          >
        </td>
      </tr>`,
  );
  return html`<section class="card" id="feeds">
    <h2>Guide feeds for media servers</h2>
    <p>
      An XMLTV address for Plex, Jellyfin, Emby, Kodi or Tvheadend, holding exactly your channels.
      See <a href="/docs#media-servers">how each takes it</a>.
    </p>
    ${
      feeds.length === 0
        ? html`<p class="muted">No feeds yet.</p>`
        : html`<table class="keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Channels</th>
                <th>Days</th>
                <th>Created</th>
                <th><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }
    ${
      feeds.length >= cap
        ? html`<p class="muted">
            You have ${cap} feeds, the most an account can hold. Delete one to create another.
          </p>`
        : html`<p><a class="button" href="/account/feeds/new">New feed</a></p>`
    }
  </section>`;
}

/** The fields of the feed form that can be refused, each with its own message. */
export type FeedField = FeedSettingsField;
export type FeedFieldErrors = Partial<Record<FeedField, string>>;

/** What the feed form shows: the values typed so far, the channels chosen, a search's finds. */
export interface FeedFormView extends Omit<ChannelPickerView, 'kind'> {
  /** Null for a new feed. */
  feedId: string | null;
  name: string;
  lineupKind: ChannelPickerView['kind'];
  daysAhead: string;
  daysBack: string;
  /** A refusal of the whole form (the feed limit, a channel gone). */
  error?: string;
  /** Every refused field at once, each shown by its input. */
  fieldErrors?: FeedFieldErrors;
}

/** The element each field's message belongs to, in the form's order. */
const FIELD_IDS: Record<FeedField, string> = {
  name: 'feed-name',
  daysBack: 'days-back',
  daysAhead: 'days-ahead',
  lineup: 'feed-channels',
};

function dayField(
  id: string,
  name: string,
  label: string,
  range: { min: number; max: number },
  value: string,
  error: { message: SafeHtml | ''; attributes: SafeHtml | '' },
): SafeHtml {
  return html`<label for="${id}">${label} (${range.min}–${range.max})</label>
    <input
      id="${id}"
      name="${name}"
      type="number"
      min="${range.min}"
      max="${range.max}"
      value="${value}"
      required
      ${error.attributes}
    />
    ${error.message}`;
}

/**
 * Create or edit a feed. Works without scripts: "Search" sends the whole form back here by GET
 * (what is chosen stays chosen), "Save" posts it.
 */
export function feedFormPage(view: FeedFormView): SafeHtml {
  const here = view.feedId === null ? '/account/feeds/new' : `/account/feeds/${view.feedId}/edit`;
  const action = view.feedId === null ? '/account/feeds' : `/account/feeds/${view.feedId}`;
  const title = view.feedId === null ? 'New guide feed' : 'Edit guide feed';
  const errors = view.fieldErrors ?? {};
  const refused = formErrors(FIELD_IDS, errors, 'The feed is not saved:');
  const nameError = refused.field('name');
  const lineupError = refused.field('lineup');
  // A refused form says so in the page's title too, the first thing a screen reader reads.
  const refusedTitle = view.error !== undefined || refused.summary !== '';
  return page(
    {
      title: refusedTitle ? `Not saved: ${title}` : title,
      signedIn: true,
      scripts: ['/assets/account.js'],
    },
    html`${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
      ${refused.summary}
      <section class="card">
        <h1>${title}</h1>
        <form method="post" action="${action}" class="feed-form">
          ${defaultSubmit('Save feed')}
          <label for="feed-name">Name</label>
          <input
            id="feed-name"
            name="name"
            maxlength="${MAX_FEED_NAME_LENGTH}"
            value="${view.name}"
            placeholder="e.g. Living room"
            required
            ${nameError.attributes}
          />
          ${nameError.message}
          ${dayField(
            'days-back',
            'days_back',
            'Days back',
            DAYS_BACK,
            view.daysBack,
            refused.field('daysBack'),
          )}
          ${dayField(
            'days-ahead',
            'days_ahead',
            'Days ahead',
            DAYS_AHEAD,
            view.daysAhead,
            refused.field('daysAhead'),
          )}
          <fieldset
            id="feed-channels"
            ${errors.lineup === undefined ? '' : html`aria-describedby="feed-channels-error"`}
          >
            <legend>Channels</legend>
            ${lineupError.message}
            ${channelPicker(
              { ...view, kind: view.lineupKind },
              {
                choice: 'lineup',
                countryId: 'feed-country',
                channelsLabel: `Channels I choose (at most ${MAX_LINEUP_CHANNELS}, in this order)`,
                searchAction: here,
              },
            )}
          </fieldset>
          <div class="actions-row form-end">
            <button type="submit">Save feed</button>
            <a class="button secondary" href="/account#feeds">Cancel</a>
          </div>
        </form>
      </section>`,
  );
}

/**
 * The feed's address, shown once: the GET after the POST that made the feed or its new URL
 * takes the token from the shown-once holder, so a reload finds nothing.
 */
export function feedUrlPage(feed: Feed, urls: { xml: string; gz: string }): SafeHtml {
  return page(
    { title: 'Feed address', signedIn: true, scripts: ['/assets/account.js'] },
    html`<section class="card">
      <h1>The address of your feed “${feed.name}”</h1>
      <p class="warning">
        <strong>Copy it now.</strong> It holds the feed's secret and is shown only this once; a new
        address ends this one. Reloading this page will not show it again.
      </p>
      <div class="secret">
        <code id="feed-url" data-secret>${urls.xml}</code>
        <button type="button" class="secondary" data-copy-target="feed-url">Copy</button>
      </div>
      <p>The same guide compressed (for servers that take <code>.xml.gz</code>):</p>
      <div class="secret"><code id="feed-url-gz" data-secret>${urls.gz}</code></div>
      <p>Paste it where your media server asks for an XMLTV guide URL.</p>
      <p><a class="button" href="/account#feeds">Back to your account</a></p>
    </section>`,
  );
}

/** Asks before a feed gets a new address (which ends the one media servers use now). */
export function newFeedUrlConfirmPage(feed: Feed): SafeHtml {
  return confirmStepPage({
    title: 'Give this feed a new URL?',
    question: html`Replace the address of the feed “${feed.name}”?`,
    consequence:
      'The current address is refused from the moment you confirm: every media server using it ' +
      'needs the new one, which is shown once.',
    action: `/account/feeds/${feed.id}/token`,
    button: 'Make a new URL',
    buttonLabel: `Make a new URL for feed ${feed.name}`,
    cancel: '/account#feeds',
  });
}

/** Asks before a feed is deleted. */
export function deleteFeedConfirmPage(feed: Feed): SafeHtml {
  return confirmStepPage({
    title: 'Delete this feed?',
    question: html`Delete the feed “${feed.name}”?`,
    consequence: 'Its address is refused from the moment you confirm. This cannot be undone.',
    action: `/account/feeds/${feed.id}/delete`,
    button: 'Delete feed',
    buttonLabel: `Delete feed ${feed.name}`,
    cancel: '/account#feeds',
  });
}
