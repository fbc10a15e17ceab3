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

/**
 * What the demo guide says of each show beyond the v1 fields, as XMLTV elements in the DTD's
 * order: series with episode numbers, credits, images, ratings, flags, so the programme detail
 * route and the playground have rich data to show. `episodes` is the season's length (its
 * episodes follow one another through the fortnight); `repeat` adds a previously-shown.
 */
interface ShowDetails {
  subTitles?: readonly string[];
  credits?: readonly (readonly [role: string, name: string, character?: string])[];
  date?: string;
  keywords?: readonly string[];
  minutesAsLength?: true;
  image?: string;
  episodes?: number;
  season?: number;
  video?: string;
  stereo?: string;
  rating?: readonly [system: string, value: string];
  stars?: string;
  subtitles?: true;
}

const SHOW_DETAILS: Readonly<Record<string, ShowDetails>> = {
  'Garden Rescue': {
    subTitles: ['The Orchard', 'A Roof Garden', 'The Wild Meadow', 'Pond Life'],
    credits: [
      ['presenter', 'Ada Moss'],
      ['guest', 'Ben Thorn'],
    ],
    date: '2025',
    keywords: ['gardening'],
    minutesAsLength: true,
    image: 'garden-rescue',
    season: 3,
    episodes: 13,
    video: 'HDTV',
    stereo: 'stereo',
    rating: ['BBFC', 'U'],
    stars: '4/5',
    subtitles: true,
  },
  'The Quiz Hour': {
    credits: [['presenter', 'Cleo Fairweather']],
    season: 7,
    episodes: 20,
    image: 'quiz-hour',
    stereo: 'stereo',
  },
  'Coastal Walks': {
    subTitles: ['Lighthouse Point', 'Smugglers’ Cove', 'The Chalk Cliffs'],
    credits: [
      ['director', 'Ines Varga'],
      ['presenter', 'Tom Heald'],
    ],
    date: '2024',
    image: 'coastal-walks',
    season: 1,
    episodes: 6,
    video: 'HDTV',
    rating: ['BBFC', 'U'],
  },
  'Kitchen Stories': {
    credits: [
      ['producer', 'Hal Pemberton'],
      ['presenter', 'Rosa Lindqvist'],
    ],
    keywords: ['cooking', 'family'],
    minutesAsLength: true,
    image: 'kitchen-stories',
    season: 2,
    episodes: 10,
    subtitles: true,
  },
  'Matchday Live': {
    credits: [
      ['commentator', 'Gus Okafor'],
      ['commentator', 'Lena Brandt'],
    ],
    image: 'matchday-live',
    video: 'HDTV',
    stereo: 'surround',
  },
  'The Long Film': {
    credits: [
      ['director', 'Mara Ellison'],
      ['actor', 'Nico Aldana', 'Captain Reyes'],
      ['actor', 'June Park', 'Dr. Hale'],
      ['writer', 'Mara Ellison'],
      ['composer', 'Oskar Veit'],
    ],
    date: '2019',
    minutesAsLength: true,
    image: 'the-long-film',
    video: 'HDTV',
    stereo: 'dolby digital',
    rating: ['MPAA', 'PG-13'],
    stars: '7.4/10',
    subtitles: true,
  },
};

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
    // How often each show has been on this channel: its episode number.
    const airings = new Map<string, number>();
    while (start < to) {
      const show = SHOWS[showIndex % SHOWS.length];
      if (show === undefined) break;
      const stop = start + show.minutes * 60_000;
      const airing = airings.get(show.title) ?? 0;
      airings.set(show.title, airing + 1);
      parts.push(
        `  <programme start="${formatXmltvUtc(start)}" stop="${formatXmltvUtc(stop)}" channel="${escapeXml(channel.xmltvId)}">` +
          programmeChildren(show, airing, channel.xmltvId) +
          '</programme>',
      );
      start = stop;
      showIndex += 1;
    }
  });
  parts.push('</tv>', '');
  return parts.join('\n');
}

/** A programme's children in the DTD's order; the show's `airing`-th time on its channel. */
function programmeChildren(show: (typeof SHOWS)[number], airing: number, channel: string): string {
  const extra = SHOW_DETAILS[show.title] ?? {};
  const lang = extra.subTitles === undefined ? '' : ' lang="en"';
  const out = [`<title${lang}>${escapeXml(show.title)}</title>`];
  const episodes = extra.episodes;
  const episode = episodes === undefined ? 0 : airing % episodes;
  const subTitle = extra.subTitles?.[airing % extra.subTitles.length];
  if (subTitle !== undefined) out.push(`<sub-title lang="en">${escapeXml(subTitle)}</sub-title>`);
  out.push(`<desc${lang}>${escapeXml(show.desc)}</desc>`);
  if (extra.credits !== undefined) {
    const people = extra.credits.map(([role, name, character]) =>
      character === undefined
        ? `<${role}>${escapeXml(name)}</${role}>`
        : `<${role} role="${escapeXml(character)}">${escapeXml(name)}</${role}>`,
    );
    out.push(`<credits>${people.join('')}</credits>`);
  }
  if (extra.date !== undefined) out.push(`<date>${extra.date}</date>`);
  for (const category of show.category.split(', ')) {
    out.push(`<category>${escapeXml(category)}</category>`);
  }
  for (const keyword of extra.keywords ?? []) out.push(`<keyword>${escapeXml(keyword)}</keyword>`);
  if (extra.subTitles !== undefined) out.push('<language>en</language>');
  if (extra.minutesAsLength) out.push(`<length units="minutes">${show.minutes}</length>`);
  if (extra.image !== undefined) {
    out.push(`<icon src="https://img.onair.example/${extra.image}.jpg" width="640" height="360"/>`);
    out.push(`<url>https://onair.example/shows/${extra.image}</url>`);
  }
  if (extra.date !== undefined) out.push('<country>UK</country>');
  if (episodes !== undefined) {
    const season = extra.season ?? 1;
    out.push(
      `<episode-num system="xmltv_ns">${season - 1}.${episode}/${episodes}.</episode-num>`,
      `<episode-num system="onscreen">S${season} E${episode + 1}</episode-num>`,
    );
  }
  if (extra.video !== undefined) {
    out.push(
      `<video><colour>yes</colour><aspect>16:9</aspect><quality>${extra.video}</quality></video>`,
    );
  }
  if (extra.stereo !== undefined) out.push(`<audio><stereo>${extra.stereo}</stereo></audio>`);
  // A season runs once through the fortnight; the episodes after it are repeats.
  if (episodes !== undefined && airing >= episodes) {
    out.push(`<previously-shown channel="${escapeXml(channel)}"/>`);
  } else if (episodes !== undefined) {
    out.push('<new/>');
  } else if (extra.date !== undefined && airing === 0) {
    out.push('<premiere/>');
  }
  if (extra.subtitles) out.push('<subtitles type="teletext"><language>en</language></subtitles>');
  if (extra.rating !== undefined) {
    out.push(
      `<rating system="${extra.rating[0]}"><value>${escapeXml(extra.rating[1])}</value></rating>`,
    );
  }
  if (extra.stars !== undefined)
    out.push(`<star-rating><value>${extra.stars}</value></star-rating>`);
  return out.join('');
}
