import { DAY_MS } from '../domain/schedule-window.js';
import { formatXmltvUtc } from '../domain/xmltv-time.js';

/**
 * A small made-up guide whose schedules sit around a given date, so a fresh install has data
 * that is never stale. Names include accents and mixed case to show off search folding.
 */
const DEMO_CHANNELS: readonly { xmltvId: string; name: string; country: string }[] = [
  { xmltvId: 'onair-news.uk', name: 'Onair News', country: 'UK' },
  { xmltvId: 'onair-one.uk', name: 'Onair One', country: 'UK' },
  { xmltvId: 'kelpie-kids.uk', name: 'Kelpie Kids', country: 'UK' },
  { xmltvId: 'tele-lumiere.fr', name: 'Télé Lumière', country: 'FR' },
  { xmltvId: 'canal-ocean.fr', name: 'Canal Océan', country: 'FR' },
  { xmltvId: 'rundfunk-sud.de', name: 'Rundfunk Süd', country: 'DE' },
  { xmltvId: 'alpen-tv.de', name: 'Alpen TV', country: 'DE' },
  { xmltvId: 'canal-sol.es', name: 'Canal Sol', country: 'ES' },
  { xmltvId: 'mar-y-montana.es', name: 'Mar y Montaña', country: 'ES' },
  { xmltvId: 'harbour-city.au', name: 'Harbour City TV', country: 'AU' },
  { xmltvId: 'outback-sport.au', name: 'Outback Sport', country: 'AU' },
  { xmltvId: 'prairie-public.us', name: 'Prairie Public', country: 'US' },
];

/**
 * The demo channels the playground previews by default: a handful, in four countries. Their
 * ids are also in migration 3 of both engines, which marks them in a database that has them.
 */
export const DEMO_PLAYGROUND_XMLTV_IDS: readonly string[] = [
  'onair-news.uk',
  'kelpie-kids.uk',
  'tele-lumiere.fr',
  'rundfunk-sud.de',
  'canal-sol.es',
];

const SHOWS: readonly { title: string; desc: string; category: string; minutes: number }[] = [
  { title: 'Morning Edition', desc: 'News, weather and travel.', category: 'News', minutes: 120 },
  {
    title: 'Garden Rescue',
    desc: 'A tired garden gets a second life.',
    category: 'Lifestyle',
    minutes: 60,
  },
  {
    title: 'The Quiz Hour',
    desc: 'Four contestants, one trophy.',
    category: 'Game show',
    minutes: 60,
  },
  {
    title: 'Coastal Walks',
    desc: 'Cliffs, coves and lighthouses.',
    category: 'Documentary, Travel',
    minutes: 30,
  },
  { title: 'Midday News', desc: 'The main stories at noon.', category: 'News', minutes: 30 },
  {
    title: 'Kitchen Stories',
    desc: 'Recipes from family kitchens.',
    category: 'Cooking',
    minutes: 90,
  },
  { title: 'Matchday Live', desc: 'Live football with analysis.', category: 'Sport', minutes: 150 },
  { title: 'The Long Film', desc: 'A feature film.', category: 'Film, Drama', minutes: 120 },
  { title: 'Evening News', desc: 'The day in review.', category: 'News', minutes: 60 },
  { title: 'Night Music', desc: 'Concert recordings.', category: 'Music', minutes: 90 },
];

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** One demo guide per country: the XMLTV text and the country to ingest it with. */
export interface DemoGuide {
  country: string;
  xml: string;
}

/** Demo guides whose schedules run from 7 days before `nowMs` to 7 days after (UTC days). */
export function demoGuides(nowMs: number): DemoGuide[] {
  const countries = [...new Set(DEMO_CHANNELS.map((c) => c.country))];
  return countries.map((country) => ({
    country,
    xml: guideXml(
      DEMO_CHANNELS.filter((c) => c.country === country),
      nowMs,
    ),
  }));
}

function guideXml(channels: typeof DEMO_CHANNELS, nowMs: number): string {
  const from = Math.floor(nowMs / DAY_MS) * DAY_MS - 7 * DAY_MS;
  const to = from + 15 * DAY_MS;
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>', '<tv generator-info-name="onair-demo">'];
  for (const channel of channels) {
    parts.push(
      `  <channel id="${escapeXml(channel.xmltvId)}"><display-name>${escapeXml(channel.name)}</display-name></channel>`,
    );
  }
  channels.forEach((channel, channelIndex) => {
    let start = from;
    let showIndex = channelIndex;
    while (start < to) {
      const show = SHOWS[showIndex % SHOWS.length];
      if (show === undefined) break;
      const stop = start + show.minutes * 60_000;
      parts.push(
        `  <programme start="${formatXmltvUtc(start)}" stop="${formatXmltvUtc(stop)}" channel="${escapeXml(channel.xmltvId)}">` +
          `<title>${escapeXml(show.title)}</title><desc>${escapeXml(show.desc)}</desc>` +
          show.category
            .split(', ')
            .map((c) => `<category>${escapeXml(c)}</category>`)
            .join('') +
          '</programme>',
      );
      start = stop;
      showIndex += 1;
    }
  });
  parts.push('</tv>', '');
  return parts.join('\n');
}
