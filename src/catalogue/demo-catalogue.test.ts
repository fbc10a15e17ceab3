import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureReferenceTools } from '../../test/helpers/xmltv-reference.js';
import { INSTALL_TIMEOUT_MS } from '../../test/helpers/debian-packages.js';
import { parseXmltvTime } from '../domain/xmltv-time.js';
import { DEMO_TIME_ZONES, demoGuides } from './demo-catalogue.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface Airing {
  channel: string;
  country: string;
  start: number;
  stop: number;
  title: string;
  categories: string[];
  length: number | null;
}

/** The programmes of the demo guides made at `nowMs`, read back from their XMLTV. */
function airings(nowMs: number): Airing[] {
  return demoGuides(nowMs).flatMap(({ country, xml }) =>
    [
      ...xml.matchAll(
        /<programme start="([^"]+)" stop="([^"]+)" channel="([^"]+)">(.*?)<\/programme>/g,
      ),
    ].map(([, start, stop, channel, body]) => ({
      channel: channel ?? '',
      country,
      start: parseXmltvTime(start ?? '', 0) ?? NaN,
      stop: parseXmltvTime(stop ?? '', 0) ?? NaN,
      title: /<title[^>]*>([^<]*)<\/title>/.exec(body ?? '')?.[1]?.replace(/&amp;/g, '&') ?? '',
      categories: [...(body ?? '').matchAll(/<category>([^<]*)<\/category>/g)].map(
        (m) => m[1] ?? '',
      ),
      length:
        Number(/<length units="minutes">(\d+)<\/length>/.exec(body ?? '')?.[1] ?? NaN) || null,
    })),
  );
}

const clocks = new Map<string, Intl.DateTimeFormat>();

/** Local wall-clock time of an instant in the zone of a demo country, as minutes after midnight. */
function localMinutes(ms: number, country: string): number {
  let format = clocks.get(country);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: DEMO_TIME_ZONES[country],
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    clocks.set(country, format);
  }
  const [hour, minute] = format.format(new Date(ms)).split(':').map(Number);
  return (hour ?? 0) * 60 + (minute ?? 0);
}

const NOW = Date.parse('2026-11-27T13:37:00Z');

/**
 * Dates around which clocks change in the demo's zones (Europe, Sydney, Chicago), the day
 * after each, and ordinary dates across a year: the guide is made around each.
 */
const DATES = [
  '2026-03-08T08:00:00Z', // Chicago springs forward
  '2026-03-09T08:00:00Z',
  '2026-03-29T00:30:00Z', // Europe springs forward
  '2026-03-29T23:30:00Z',
  '2026-04-05T02:00:00Z', // Sydney falls back
  '2026-04-06T12:00:00Z',
  '2026-10-04T12:00:00Z', // Sydney springs forward
  '2026-10-25T01:30:00Z', // Europe falls back
  '2026-10-25T18:00:00Z',
  '2026-11-01T07:00:00Z', // Chicago falls back
  '2026-01-01T00:00:00Z',
  '2026-06-21T12:00:00Z',
  '2027-02-28T23:59:00Z',
].map(Date.parse);

describe('the demo guide', () => {
  const all = airings(NOW);

  it('has the size the README gives, whatever the date', () => {
    const channels = new Set(all.map((a) => a.channel)).size;
    expect(channels).toBe(12);
    for (const date of DATES)
      expect(airings(date), new Date(date).toISOString()).toHaveLength(all.length);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const said = `${channels} channels, ${all.length} programmes`;
    expect(readme.includes(said), `README.md says "${said}"`).toBe(true);
  });

  it('runs without gaps or overlaps on every channel, from a week back to a week ahead', () => {
    for (const date of [NOW, ...DATES]) {
      const byChannel = new Map<string, Airing[]>();
      for (const a of airings(date))
        byChannel.set(a.channel, [...(byChannel.get(a.channel) ?? []), a]);
      for (const [channel, list] of byChannel) {
        const at = `${channel} around ${new Date(date).toISOString()}`;
        list.forEach((a, i) => {
          expect(a.stop - a.start, at).toBeGreaterThan(0);
          if (i > 0) expect(a.start, at).toBe(list[i - 1]?.stop);
        });
        expect(list[0]?.start, at).toBeLessThanOrEqual(date - 7 * DAY_MS);
        expect(list.at(-1)?.stop, at).toBeGreaterThanOrEqual(date + 7 * DAY_MS);
      }
    }
  });

  it('fits titles to the local time of day in each country', () => {
    const within = (a: Airing, from: string, to: string) => {
      const [fromH, fromM] = from.split(':').map(Number);
      const [toH, toM] = to.split(':').map(Number);
      const lo = (fromH ?? 0) * 60 + (fromM ?? 0);
      const hi = (toH ?? 0) * 60 + (toM ?? 0);
      const local = localMinutes(a.start, a.country);
      const inside = lo <= hi ? local >= lo && local <= hi : local >= lo || local <= hi;
      return inside
        ? null
        : `${a.title} on ${a.channel} at local ${Math.floor(local / 60)}:${local % 60}`;
    };
    const wrong: string[] = [];
    const check = (a: Airing, from: string, to: string) => {
      const problem = within(a, from, to);
      if (problem !== null) wrong.push(`${problem} (expected ${from}-${to})`);
    };
    for (const date of [NOW, ...DATES]) {
      for (const a of airings(date)) {
        const local = localMinutes(a.start, a.country);
        // The news at fixed times: on the hour, or a quarter or half past it.
        if (a.categories.includes('News')) {
          if (local % 15 !== 0) wrong.push(`${a.title} on ${a.channel} at minute ${local % 60}`);
        }
        // Bulletins named for their hour start at it.
        const named: [RegExp, string][] = [
          [/Midday/, '12:00'],
          [/13 heures|Mittag/, '13:00'],
          [/Six O’Clock|NewsHour/, '18:00'],
          [/20 heures|um Acht/, '20:00'],
        ];
        for (const [pattern, hour] of named) if (pattern.test(a.title)) check(a, hour, hour);
        // Breakfast shows in the morning, films in the evening or the night, children's
        // programmes by day (the last one until bedtime), late shows late.
        if (/Morning|Matin|Morgen|Buenos Días|Rise and Shine/.test(a.title))
          check(a, '05:00', '09:00');
        if (a.categories.includes('Film')) check(a, '19:00', '01:00');
        if (a.categories.includes('Children')) check(a, '06:00', '19:00');
        if (/Late|Night|Nacht|Noche/.test(a.title)) check(a, '21:00', '05:00');
      }
    }
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('keeps what the playground and the client tests show: Onair News’s garden and film every day', () => {
    const news = all.filter((a) => a.channel === 'onair-news.uk');
    for (
      let day = Math.floor(NOW / DAY_MS) * DAY_MS - 6 * DAY_MS;
      day < NOW + 6 * DAY_MS;
      day += DAY_MS
    ) {
      const titles = news
        .filter((a) => a.start >= day && a.start < day + DAY_MS)
        .map((a) => a.title);
      expect(titles).toEqual(expect.arrayContaining(['Garden Rescue', 'The Long Film']));
    }
    // Its guide grid over any three hours shows at least two programmes, on any night.
    for (const date of DATES) {
      for (const a of airings(date).filter((x) => x.channel === 'onair-news.uk')) {
        expect(a.stop - a.start).toBeLessThan(3 * HOUR_MS);
      }
    }
    // The rich show's length is an hour wherever it airs.
    const gardens = all.filter((a) => a.title === 'Garden Rescue');
    expect(new Set(gardens.map((a) => a.length))).toEqual(new Set([60]));
    expect(new Set(gardens.map((a) => a.channel))).toContain('kelpie-kids.uk');
  });

  it(
    'is valid XMLTV by the reference tools (tv_validate_file)',
    () => {
      ensureReferenceTools();
      const dir = mkdtempSync(join(tmpdir(), 'onair-demo-'));
      try {
        for (const { country, xml } of demoGuides(NOW)) {
          const file = join(dir, `demo-${country}.xml`);
          writeFileSync(file, xml);
          const out = execFileSync('tv_validate_file', [file], {
            env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          expect(out, country).toBe('Validated ok.\n');
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    INSTALL_TIMEOUT_MS,
  );
});
