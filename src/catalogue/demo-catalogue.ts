import { DAY_MS } from '../domain/schedule-window.js';
import { formatXmltvUtc } from '../domain/xmltv-time.js';
import { escapeXml } from '../domain/xmltv-writer.js';

/**
 * A small made-up guide whose schedules sit around a given date, so a fresh install has data
 * that is never stale (and `npm start` moves it to the current week again: demo-seed.ts).
 * Names include accents and mixed case to show off search folding.
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

/** Every demo channel's XMLTV id: a catalogue of these channels only holds the demo alone. */
export const DEMO_XMLTV_IDS: readonly string[] = DEMO_CHANNELS.map((c) => c.xmltvId);

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

/** A show as the guide describes it; `lang` for a title that is not in English. */
interface Show {
  title: string;
  desc: string;
  category: string;
  lang?: string;
}

const SHOWS: readonly Show[] = [
  // News, at fixed times.
  {
    title: 'Morning Edition',
    desc: 'News, weather and travel to start the day.',
    category: 'News',
  },
  { title: 'The News Hour', desc: 'The hour’s stories, with analysis.', category: 'News' },
  { title: 'Midday News', desc: 'The main stories at noon.', category: 'News' },
  { title: 'Evening News', desc: 'The day in review.', category: 'News' },
  { title: 'Late News', desc: 'The night’s headlines and tomorrow’s papers.', category: 'News' },
  { title: 'Through the Night', desc: 'Rolling news through the small hours.', category: 'News' },
  {
    title: 'Business Today',
    desc: 'Markets, companies and the economy.',
    category: 'News, Business',
  },
  { title: 'Sports Desk', desc: 'Results, reaction and the day ahead.', category: 'Sport, News' },
  {
    title: 'Good Morning Harbour',
    desc: 'Breakfast news from the harbour city.',
    category: 'News',
  },
  { title: 'The Six O’Clock News', desc: 'The evening bulletin.', category: 'News' },
  { title: 'Prairie Morning', desc: 'Morning news for the plains.', category: 'News' },
  { title: 'Prairie NewsHour', desc: 'The day’s news in depth.', category: 'News' },
  {
    title: 'Télé Matin',
    desc: 'Infos, météo et invités pour bien commencer la journée.',
    category: 'News',
    lang: 'fr',
  },
  {
    title: 'Le Journal de 13 heures',
    desc: 'L’actualité de la mi-journée.',
    category: 'News',
    lang: 'fr',
  },
  { title: 'Le Journal de 20 heures', desc: 'L’actualité du jour.', category: 'News', lang: 'fr' },
  {
    title: 'Morgenmagazin',
    desc: 'Nachrichten und Gäste am Morgen.',
    category: 'News',
    lang: 'de',
  },
  { title: 'Mittagsmagazin', desc: 'Nachrichten zur Mittagszeit.', category: 'News', lang: 'de' },
  {
    title: 'Nachrichten um Acht',
    desc: 'Die Nachrichten des Tages.',
    category: 'News',
    lang: 'de',
  },
  { title: 'Nachtmagazin', desc: 'Die Nachrichten zur Nacht.', category: 'News', lang: 'de' },
  {
    title: 'Buenos Días',
    desc: 'Noticias, tiempo y tráfico para empezar el día.',
    category: 'News',
    lang: 'es',
  },
  {
    title: 'Noticias de la Tarde',
    desc: 'Las noticias de la sobremesa.',
    category: 'News',
    lang: 'es',
  },
  { title: 'Noticias de la Noche', desc: 'Las noticias del día.', category: 'News', lang: 'es' },
  // Daytime and the evening.
  {
    title: 'Rise and Shine',
    desc: 'Breakfast chat, recipes and guests.',
    category: 'Magazine, Talk',
  },
  { title: 'Garden Rescue', desc: 'A tired garden gets a second life.', category: 'Lifestyle' },
  { title: 'Kitchen Stories', desc: 'Recipes from family kitchens.', category: 'Cooking' },
  { title: 'Attic Treasures', desc: 'Heirlooms valued, stories told.', category: 'Lifestyle' },
  {
    title: 'Coastal Walks',
    desc: 'Cliffs, coves and lighthouses.',
    category: 'Documentary, Travel',
  },
  { title: 'Ocean Life', desc: 'Reefs, whales and tides.', category: 'Documentary, Nature' },
  {
    title: 'Island Hopping',
    desc: 'One island a week, by ferry.',
    category: 'Documentary, Travel',
  },
  { title: 'Alpine Hikes', desc: 'Trails, huts and summits.', category: 'Documentary, Travel' },
  { title: 'The Quiz Hour', desc: 'Four contestants, one trophy.', category: 'Game show' },
  { title: 'Harbour Lane', desc: 'Life on one street by the sea.', category: 'Drama, Soap' },
  { title: 'Matchday Live', desc: 'Live football with analysis.', category: 'Sport' },
  { title: 'Cricket Classics', desc: 'Great matches replayed.', category: 'Sport' },
  { title: 'Outback Motors', desc: 'Engines across the red centre.', category: 'Sport, Motoring' },
  { title: 'Match Replay', desc: 'Last night’s match in full.', category: 'Sport' },
  { title: 'The Long Film', desc: 'A feature film.', category: 'Film, Drama' },
  { title: 'The Late Film', desc: 'A feature for night owls.', category: 'Film' },
  { title: 'Ciné-soirée', desc: 'Le film de la soirée.', category: 'Film', lang: 'fr' },
  { title: 'Der Spielfilm', desc: 'Der Spielfilm am Abend.', category: 'Film', lang: 'de' },
  { title: 'Cine de Noche', desc: 'La película de la noche.', category: 'Film', lang: 'es' },
  // Late at night.
  {
    title: 'Late Night Talk',
    desc: 'Guests, music and jokes before bed.',
    category: 'Talk, Comedy',
  },
  { title: 'Night Music', desc: 'Concert recordings.', category: 'Music' },
  {
    title: 'Alpine Panorama',
    desc: 'Live views from the peaks while the valleys sleep.',
    category: 'Travel',
  },
  // Children.
  { title: 'Puddle Jumpers', desc: 'Songs and splashes for little ones.', category: 'Children' },
  {
    title: 'Kelpie and Friends',
    desc: 'A water horse and her friends explore the loch.',
    category: 'Children, Animation',
  },
  { title: 'Story Time', desc: 'A picture book, read aloud.', category: 'Children' },
  { title: 'Science Club', desc: 'Experiments to try at home.', category: 'Children, Educational' },
  { title: 'Kelpie News', desc: 'The day’s news for young viewers.', category: 'Children, News' },
  {
    title: 'Homework Heroes',
    desc: 'Help with the day’s homework.',
    category: 'Children, Educational',
  },
  { title: 'Bedtime Stories', desc: 'A calm story before bed.', category: 'Children' },
  { title: 'Sleepy Songs', desc: 'Gentle songs until morning.', category: 'Children, Music' },
];

const SHOW_BY_TITLE = new Map(SHOWS.map((show) => [show.title, show]));

/**
 * The time zone of each demo country, in which its channels' days are planned: breakfast at
 * breakfast time and the news at eight in Berlin, in Sydney and in Chicago alike.
 */
export const DEMO_TIME_ZONES: Readonly<Record<string, string>> = {
  UK: 'Europe/London',
  FR: 'Europe/Paris',
  DE: 'Europe/Berlin',
  ES: 'Europe/Madrid',
  AU: 'Australia/Sydney',
  US: 'America/Chicago',
};

/** A slot of a channel's day: its local start (`HH:MM`, after midnight as `24:30`…) and title. */
type Slot = readonly [start: string, title: string];

/** `titles` in turn, `minutes` each, from `from` until `to` (local times as in Slot). */
function rotate(from: string, to: string, minutes: number, titles: readonly string[]): Slot[] {
  const slots: Slot[] = [];
  for (let at = clockMinutes(from), i = 0; at < clockMinutes(to); at += minutes, i += 1) {
    slots.push([clock(at), titles[i % titles.length] ?? '']);
  }
  return slots;
}

function clockMinutes(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

const KIDS = ['Puddle Jumpers', 'Kelpie and Friends', 'Story Time', 'Science Club'];

/**
 * Each channel's day in local time, from 06:00 to 06:00 the next morning: a slot runs until the
 * next one starts. No slot starts in an hour that clocks skip or repeat (within 01:00-03:00 in
 * these zones): the slot across it is an hour shorter or longer on those nights, and every day
 * has the same slots, so the guide's size does not depend on the date.
 */
const DAYS: Readonly<Record<string, readonly Slot[]>> = {
  // A news channel with daytime features and a film at nine; the playground shows it.
  'onair-news.uk': [
    ['06:00', 'Morning Edition'],
    ['08:30', 'Sports Desk'],
    ['09:00', 'The News Hour'],
    ['10:00', 'Garden Rescue'],
    ['11:00', 'Business Today'],
    ['11:30', 'Coastal Walks'],
    ['12:00', 'Midday News'],
    ['13:00', 'Kitchen Stories'],
    ['14:00', 'The News Hour'],
    ['15:00', 'Attic Treasures'],
    ['16:00', 'The News Hour'],
    ['17:00', 'Sports Desk'],
    ['17:30', 'Business Today'],
    ['18:00', 'Evening News'],
    ['19:00', 'The News Hour'],
    ['20:00', 'Coastal Walks'],
    ['20:30', 'Business Today'],
    ['21:00', 'The Long Film'],
    ['23:00', 'Late News'],
    ['23:30', 'Late Night Talk'],
    ['24:30', 'Night Music'],
    ['26:00', 'Through the Night'],
    ['28:00', 'Business Today'],
    ['28:30', 'Through the Night'],
  ],
  'onair-one.uk': [
    ['06:00', 'Rise and Shine'],
    ['09:30', 'Attic Treasures'],
    ['10:30', 'Kitchen Stories'],
    ['11:30', 'Coastal Walks'],
    ['12:00', 'Midday News'],
    ['12:30', 'Garden Rescue'],
    ['13:30', 'Matchday Live'],
    ['16:00', 'The Quiz Hour'],
    ['17:00', 'Harbour Lane'],
    ['17:30', 'Sports Desk'],
    ['18:00', 'Evening News'],
    ['18:30', 'The Quiz Hour'],
    ['19:30', 'Harbour Lane'],
    ['20:00', 'The Long Film'],
    ['22:00', 'Late News'],
    ['22:30', 'Late Night Talk'],
    ['23:30', 'The Late Film'],
    ['26:00', 'Night Music'],
  ],
  // Children's programmes by day (their own news after school), a family hour at teatime,
  // songs through the night.
  'kelpie-kids.uk': [
    ...rotate('06:00', '16:00', 30, KIDS),
    ['16:00', 'Homework Heroes'],
    ['16:30', 'Kelpie News'],
    ['16:45', 'Kelpie and Friends'],
    ['17:00', 'Garden Rescue'],
    ['18:00', 'Story Time'],
    ['18:30', 'Bedtime Stories'],
    ['19:00', 'Sleepy Songs'],
  ],
  'tele-lumiere.fr': [
    ['06:00', 'Télé Matin'],
    ['09:30', 'Coastal Walks'],
    ['10:00', 'Attic Treasures'],
    ['11:00', 'Kitchen Stories'],
    ['12:00', 'The Quiz Hour'],
    ['13:00', 'Le Journal de 13 heures'],
    ['13:45', 'Garden Rescue'],
    ['14:45', 'Harbour Lane'],
    ['15:15', 'Coastal Walks'],
    ['15:45', 'Attic Treasures'],
    ['16:45', 'Kitchen Stories'],
    ['17:45', 'The Quiz Hour'],
    ['18:45', 'Harbour Lane'],
    ['19:15', 'Sports Desk'],
    ['20:00', 'Le Journal de 20 heures'],
    ['20:45', 'Ciné-soirée'],
    ['22:45', 'Late Night Talk'],
    ['24:00', 'Night Music'],
  ],
  'canal-ocean.fr': [
    ['06:00', 'Télé Matin'],
    ...rotate('08:00', '13:00', 60, ['Ocean Life', 'Island Hopping', 'Coastal Walks']),
    ['13:00', 'Le Journal de 13 heures'],
    ...rotate('13:45', '19:45', 60, ['Island Hopping', 'Ocean Life', 'Coastal Walks']),
    ['19:45', 'Coastal Walks'],
    ['20:00', 'Le Journal de 20 heures'],
    ['20:45', 'Ocean Life'],
    ['21:45', 'Ciné-soirée'],
    ['23:45', 'Night Music'],
  ],
  'rundfunk-sud.de': [
    ['06:00', 'Morgenmagazin'],
    ['09:00', 'Attic Treasures'],
    ['10:00', 'Kitchen Stories'],
    ['11:00', 'Coastal Walks'],
    ['11:30', 'Garden Rescue'],
    ['12:30', 'Harbour Lane'],
    ['13:00', 'Mittagsmagazin'],
    ['14:00', 'Attic Treasures'],
    ['15:00', 'Coastal Walks'],
    ['15:30', 'Kitchen Stories'],
    ['16:30', 'The Quiz Hour'],
    ['17:30', 'Harbour Lane'],
    ['18:00', 'Sports Desk'],
    ['18:30', 'Coastal Walks'],
    ['19:00', 'Attic Treasures'],
    ['20:00', 'Nachrichten um Acht'],
    ['20:15', 'Der Spielfilm'],
    ['22:00', 'Nachtmagazin'],
    ['22:30', 'Late Night Talk'],
    ['23:30', 'Night Music'],
  ],
  'alpen-tv.de': [
    ['06:00', 'Morgenmagazin'],
    ...rotate('08:00', '13:00', 60, ['Alpine Hikes', 'Attic Treasures', 'Kitchen Stories']),
    ['13:00', 'Mittagsmagazin'],
    ['14:00', 'Matchday Live'],
    ['16:30', 'Alpine Hikes'],
    ['17:30', 'The Quiz Hour'],
    ['18:30', 'Harbour Lane'],
    ['19:00', 'Sports Desk'],
    ['19:30', 'Alpine Hikes'],
    ['20:00', 'Nachrichten um Acht'],
    ['20:15', 'Der Spielfilm'],
    ['22:00', 'Nachtmagazin'],
    ['22:30', 'The Late Film'],
    ['24:30', 'Alpine Panorama'],
  ],
  // Spanish hours: the news at three and at nine, the film after ten.
  'canal-sol.es': [
    ['06:00', 'Buenos Días'],
    ['10:00', 'Attic Treasures'],
    ['11:00', 'Kitchen Stories'],
    ['12:00', 'Garden Rescue'],
    ['13:00', 'The Quiz Hour'],
    ['14:00', 'Coastal Walks'],
    ['14:30', 'Harbour Lane'],
    ['15:00', 'Noticias de la Tarde'],
    ['16:00', 'Attic Treasures'],
    ['17:00', 'Kitchen Stories'],
    ['18:00', 'The Quiz Hour'],
    ['19:00', 'Sports Desk'],
    ['19:30', 'Harbour Lane'],
    ['20:00', 'Coastal Walks'],
    ['21:00', 'Noticias de la Noche'],
    ['22:00', 'The Long Film'],
    ['24:00', 'Night Music'],
  ],
  'mar-y-montana.es': [
    ['06:00', 'Buenos Días'],
    ...rotate('09:00', '15:00', 60, ['Island Hopping', 'Ocean Life', 'Alpine Hikes']),
    ['15:00', 'Noticias de la Tarde'],
    ...rotate('16:00', '21:00', 60, ['Coastal Walks', 'Ocean Life', 'Island Hopping']),
    ['21:00', 'Noticias de la Noche'],
    ['22:00', 'Cine de Noche'],
    ['24:00', 'Night Music'],
  ],
  'harbour-city.au': [
    ['06:00', 'Good Morning Harbour'],
    ['09:00', 'Attic Treasures'],
    ['10:00', 'Kitchen Stories'],
    ['11:00', 'Garden Rescue'],
    ['12:00', 'Midday News'],
    ['13:00', 'Coastal Walks'],
    ['13:30', 'Attic Treasures'],
    ['14:30', 'Harbour Lane'],
    ['15:00', 'Puddle Jumpers'],
    ['15:30', 'Kelpie and Friends'],
    ['16:00', 'Science Club'],
    ['16:30', 'The Quiz Hour'],
    ['17:30', 'Harbour Lane'],
    ['18:00', 'The Six O’Clock News'],
    ['19:00', 'Sports Desk'],
    ['19:30', 'Kitchen Stories'],
    ['20:30', 'The Long Film'],
    ['22:30', 'Late News'],
    ['23:00', 'Late Night Talk'],
    ['24:00', 'Night Music'],
  ],
  'outback-sport.au': [
    ['06:00', 'Sports Desk'],
    ['07:00', 'Cricket Classics'],
    ['10:00', 'Outback Motors'],
    ['11:00', 'Sports Desk'],
    ['11:30', 'Matchday Live'],
    ['14:00', 'Cricket Classics'],
    ['17:00', 'Sports Desk'],
    ['17:30', 'Outback Motors'],
    ['18:30', 'Matchday Live'],
    ['21:00', 'Sports Desk'],
    ['21:30', 'Match Replay'],
    ['24:00', 'Cricket Classics'],
    ['27:00', 'Match Replay'],
  ],
  // Public television: children's programmes in the morning and after school.
  'prairie-public.us': [
    ['06:00', 'Prairie Morning'],
    ...rotate('08:00', '12:00', 30, KIDS),
    ['12:00', 'Midday News'],
    ['12:30', 'Garden Rescue'],
    ['13:30', 'Kitchen Stories'],
    ['14:30', 'Coastal Walks'],
    ...rotate('15:00', '16:30', 30, ['Science Club', 'Story Time', 'Kelpie and Friends']),
    ['16:30', 'Homework Heroes'],
    ['17:00', 'Coastal Walks'],
    ['17:30', 'Kitchen Stories'],
    ['18:00', 'Prairie NewsHour'],
    ['19:00', 'Attic Treasures'],
    ['20:00', 'The Long Film'],
    ['22:00', 'Late News'],
    ['22:30', 'Late Night Talk'],
    ['23:30', 'Night Music'],
  ],
};

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

/** One demo guide per country: the XMLTV text and the country to ingest it with. */
export interface DemoGuide {
  country: string;
  xml: string;
}

/**
 * Demo guides whose schedules run over the fortnight around `nowMs`: each channel's fifteen
 * local days (06:00 to 06:00 in its country's zone) from the one under way a week ago.
 */
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
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>', '<tv generator-info-name="onair-demo">'];
  for (const channel of channels) {
    parts.push(
      `  <channel id="${escapeXml(channel.xmltvId)}"><display-name>${escapeXml(channel.name)}</display-name></channel>`,
    );
  }
  for (const channel of channels) {
    const zone = DEMO_TIME_ZONES[channel.country] ?? 'UTC';
    const day = DAYS[channel.xmltvId] ?? [];
    const first = clockMinutes(day[0]?.[0] ?? '06:00');
    // The channel's day (from 06:00 local) a week ago: the fortnight starts with it.
    const weekAgo = wallClock(nowMs - 7 * DAY_MS, zone) - first * 60_000;
    const firstDate = Math.floor(weekAgo / DAY_MS) * DAY_MS;
    // How often each show has been on this channel: its episode number.
    const airings = new Map<string, number>();
    for (let days = 0; days < 15; days++) {
      const date = firstDate + days * DAY_MS;
      const opens = localTimeToUtc(date, first, zone);
      const closes = localTimeToUtc(date + DAY_MS, first, zone);
      // A day of 24 hours keeps one offset throughout: its slots need no look-up of their own.
      const at = (minutes: number) =>
        closes - opens === DAY_MS
          ? opens + (minutes - first) * 60_000
          : localTimeToUtc(date, minutes, zone);
      day.forEach(([clockTime, title], i) => {
        const show = SHOW_BY_TITLE.get(title);
        if (show === undefined) throw new Error(`demo guide: no show "${title}"`);
        const start = at(clockMinutes(clockTime));
        const next = day[i + 1]?.[0];
        const stop = next === undefined ? closes : at(clockMinutes(next));
        const airing = airings.get(title) ?? 0;
        airings.set(title, airing + 1);
        parts.push(
          `  <programme start="${formatXmltvUtc(start)}" stop="${formatXmltvUtc(stop)}" channel="${escapeXml(channel.xmltvId)}">` +
            programmeChildren(show, airing, channel.xmltvId, Math.round((stop - start) / 60_000)) +
            '</programme>',
        );
      });
    }
  }
  parts.push('</tv>', '');
  return parts.join('\n');
}

/** Wall-clock reading of an instant in a zone, as a UTC timestamp (its offset added). */
function wallClock(ms: number, zone: string): number {
  const parts = Object.fromEntries(
    zoneFormat(zone)
      .formatToParts(new Date(ms))
      .map((part) => [part.type, Number(part.value)]),
  );
  return Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
  );
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();
function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    zoneFormats.set(zone, format);
  }
  return format;
}

/**
 * The instant a zone's clocks read `minutes` after the midnight starting `date` (a UTC
 * midnight standing for a local date; past 24:00 runs into the next day). The offset is taken
 * at a first guess and again at the answer, which settles it outside the hour clocks change.
 */
function localTimeToUtc(date: number, minutes: number, zone: string): number {
  const wall = date + minutes * 60_000;
  const guess = wall - (wallClock(wall, zone) - wall);
  return wall - (wallClock(guess, zone) - guess);
}

/** A programme's children in the DTD's order; the show's `airing`-th time on its channel. */
function programmeChildren(show: Show, airing: number, channel: string, minutes: number): string {
  const extra = SHOW_DETAILS[show.title] ?? {};
  const lang =
    show.lang !== undefined
      ? ` lang="${show.lang}"`
      : extra.subTitles === undefined
        ? ''
        : ' lang="en"';
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
  if (extra.minutesAsLength) out.push(`<length units="minutes">${minutes}</length>`);
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
