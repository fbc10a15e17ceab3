import { isUuid } from '../domain/catalogue-ids.js';
import { searchNeedle } from '../domain/search-folding.js';
import type { Store } from '../storage/store.js';
import { formFields } from './page-helpers.js';
import type { ChannelPickerView } from './views/channel-picker.js';

/** Channels a picker's search offers at most. */
const SEARCH_RESULTS = 50;

/** The channel ids ticked in a form: ids only, each once, at most `max`; anything else is none. */
export function chosenChannelIds(fields: unknown, max: number): string[] {
  return [...new Set(formFields(fields, 'channel').filter(isUuid))].slice(0, max);
}

/**
 * What a channel picker (views/channel-picker.ts) shows besides what was typed: the countries,
 * the chosen channels, and the finds of the search `q` that are not chosen yet (null: no search).
 */
export async function channelChoices(
  store: Pick<Store, 'catalogue' | 'feeds'>,
  channelIds: readonly string[],
  q: string,
): Promise<Pick<ChannelPickerView, 'countries' | 'chosen' | 'found'>> {
  const countries = await store.catalogue.listCountries();
  const chosen = await store.feeds.lineupChannels({ kind: 'channels', channelIds });
  const needle = searchNeedle(q);
  if (needle === null) return { countries, chosen, found: null };
  const matches = await store.catalogue.searchChannels(needle, null, SEARCH_RESULTS);
  const taken = new Set(channelIds);
  const found = await store.feeds.lineupChannels({
    kind: 'channels',
    channelIds: matches.map((c) => c.id).filter((id) => !taken.has(id)),
  });
  return { countries, chosen, found };
}
