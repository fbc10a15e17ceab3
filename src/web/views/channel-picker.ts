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
  /** Where "Search" sends the whole form back by GET. */
  searchAction: string;
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
 * The channels of a feed or a webhook: every channel of a country, or channels chosen by
 * searching. Works without scripts: "Search" sends the whole form back by GET (what is chosen
 * stays chosen) and the search's finds come back as boxes to tick.
 */
export function channelPicker(view: ChannelPickerView, fields: ChannelPickerFields): SafeHtml {
  return html`${choice(view, fields.choice, 'country', 'Every channel of a country')}
    <label for="${fields.countryId}" class="sr-only">Country</label>
    <select id="${fields.countryId}" name="country">
      ${view.countries.map(
        (c) =>
          html`<option value="${c.country}" ${c.country === view.country ? 'selected' : ''}>
            ${c.country} (${c.channelCount} channels)
          </option>`,
      )}
    </select>
    ${choice(view, fields.choice, 'channels', fields.channelsLabel)}
    <ul class="channel-picks" aria-label="Chosen channels">
      ${view.chosen.map((c) => channelBox(c, true))}
    </ul>
    <div class="row">
      <label for="channel-search" class="sr-only">Search channels</label>
      <input id="channel-search" name="q" value="${view.q}" placeholder="Channel name" />
      <button
        type="submit"
        class="secondary"
        formmethod="get"
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
