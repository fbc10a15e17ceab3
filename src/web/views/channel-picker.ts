import { countOf } from '../../domain/plural.js';
import type { CountryCount } from '../../domain/channel.js';
import type { LineupChannel } from '../../storage/feed-store.js';
import { html, type SafeHtml } from '../html.js';

/** What a channel picker shows: the choice made so far, the channels chosen, a search's finds. */
export interface ChannelPickerView {
  kind: 'country' | 'channels';
  country: string;
  countries: readonly CountryCount[];
  chosen: readonly LineupChannel[];
  q: string;
  /** Channels the search found that are not chosen yet; null before any search. */
  found: readonly LineupChannel[] | null;
}

export interface ChannelPickerFields {
  /** Name of the radio choice between a country and chosen channels. */
  choice: string;
  /** Id of the country list (its label is "Country"). */
  countryId: string;
  /** Label of the "chosen channels" choice. */
  channelsLabel: string;
  /** Where "Search" sends the whole form back. */
  searchAction: string;
  /**
   * How: GET (the default) keeps the form in the address, so a search can be bookmarked; POST
   * for a form whose fields may hold a secret (a webhook's URL may carry its receiver's token),
   * kept out of the address bar, the browser's history and the request log.
   */
  searchMethod?: 'get' | 'post';
}

function choice(
  view: ChannelPickerView,
  name: string,
  kind: ChannelPickerView['kind'],
  label: string,
) {
  return html`<label class="check">
    <input type="radio" name="${name}" value="${kind}" ${view.kind === kind ? 'checked' : ''} />
    ${label}
  </label>`;
}

function channelBox(channel: LineupChannel, checked: boolean): SafeHtml {
  return html`<li>
    <label class="check">
      <input type="checkbox" name="channel" value="${channel.id}" ${checked ? 'checked' : ''} />
      ${channel.name} <span class="muted">${channel.xmltvId}</span>
    </label>
  </li>`;
}

/**
 * The form's main action again, first in the form: a browser's Enter in a text field presses the
 * form's first submit button, which would otherwise be the picker's "Search" (a GET that puts
 * what was typed, a webhook's URL too, in the address). Out of sight, out of the tab order and
 * of the accessibility tree: the visible button at the end is the one people meet. Needs no
 * script; account.js only makes Enter in the search box search.
 */
export function defaultSubmit(label: string): SafeHtml {
  return html`<button type="submit" class="default-action" tabindex="-1" aria-hidden="true">
    ${label}
  </button>`;
}

/**
 * The channels of a feed or a webhook: every channel of a country, or channels chosen by
 * searching. Works without scripts: "Search" sends the whole form back by GET (what is chosen
 * stays chosen) and the search's finds come back as boxes to tick.
 */
export function channelPicker(view: ChannelPickerView, fields: ChannelPickerFields): SafeHtml {
  return html`${choice(view, fields.choice, 'country', 'Every channel of a country')}
    <label for="${fields.countryId}" class="sr-only">Country</label>
    <select id="${fields.countryId}" name="country" class="choice-detail">
      ${view.countries.map(
        (c) =>
          html`<option value="${c.country}" ${c.country === view.country ? 'selected' : ''}>
            ${c.country} (${countOf(c.channelCount, 'channel')})
          </option>`,
      )}
    </select>
    ${choice(view, fields.choice, 'channels', fields.channelsLabel)}
    <ul class="channel-picks choice-detail" aria-label="Chosen channels">
      ${view.chosen.map((c) => channelBox(c, true))}
    </ul>
    <div class="row choice-detail">
      <label for="channel-search">Search channels</label>
      <input
        id="channel-search"
        name="q"
        value="${view.q}"
        placeholder="Channel name"
        data-enter-presses="channel-search-button"
      />
      <button
        id="channel-search-button"
        type="submit"
        class="secondary"
        formmethod="${fields.searchMethod ?? 'get'}"
        formaction="${fields.searchAction}"
        formnovalidate
      >
        Search
      </button>
    </div>
    ${
      view.found === null
        ? ''
        : view.found.length === 0
          ? html`<p class="muted">No channel found by that name.</p>`
          : html`<ul class="channel-picks" aria-label="Channels found">
              ${view.found.map((c) => channelBox(c, false))}
            </ul>`
    }`;
}
