import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo-seed.js';
import type { RunningServer } from '../../src/server.js';
import { BROWSER_SETUP_TIMEOUT_MS, RESULTS, SKIP_BROWSER } from '../helpers/chromium.js';
import { startBrowserServer, type BrowserServer } from '../helpers/browser-server.js';

let running: BrowserServer;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  running = await startBrowserServer(
    // The tests ask the preview far more than 60 times a minute from one address; a 429 is
    // tested with answers of its own (see "a 429 is waited out").
    { PLAYGROUND_LIMIT: '100000' },
    { beforeListen: async (store) => void (await seedDemo(store, Date.now())) },
  );
  ({ server, browser } = running);
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (SKIP_BROWSER) return;
  await running?.close();
});

/** A page that records console errors (CSP violations among them) and every request it makes. */
async function watchedPage(): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  return { page, problems, requests };
}

describe.skipIf(SKIP_BROWSER)('developer pages in Chromium', () => {
  it('/docs renders the reference of the nine routes, the two feeds and the webhook from /openapi.json', async () => {
    const { page, problems, requests } = await watchedPage();
    await page.goto(`${server.url}/docs`);
    const paths = page.locator('.opblock-summary-path');
    await expect.poll(() => paths.count(), { timeout: 20_000 }).toBe(12);
    expect(
      await paths.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-path'))),
    ).toEqual([
      '/api/v1/countries',
      '/api/v1/countries/{country}/channels',
      '/api/v1/channels/search',
      '/api/v1/channels/{channelId}/programmes',
      '/api/v1/channels/{channelId}/programmes/{programmeId}',
      '/api/v1/guide',
      '/api/v1/now',
      '/api/v1/programmes/search',
      '/api/v1/changes',
      '/feeds/{token}/guide.xml',
      '/feeds/{token}/guide.xml.gz',
      // The request a webhook receives (OpenAPI `webhooks`): Swagger UI lists it after the paths.
      'changes',
    ]);
    expect(await page.locator('.opblock-get').count()).toBe(11);
    expect(await page.locator('.opblock-post').count()).toBe(1);
    // The server list names this deployment.
    expect(await page.locator('.servers select').textContent()).toContain(server.url);

    // An operation opens to its parameters and every error code.
    await page.locator('.opblock-summary-path[data-path$="/programmes"]').click();
    const programmes = page.locator('.opblock.is-open');
    await expect.poll(() => programmes.locator('.parameters').textContent()).toMatch(/days/);
    const responses = (await programmes.locator('.responses-wrapper').textContent()) ?? '';
    for (const code of ['INVALID_DAYS', 'CHANNEL_NOT_FOUND', 'UNAUTHORIZED', 'RATE_LIMITED']) {
      expect(responses).toContain(code);
    }
    await page.locator('.opblock-summary-path[data-path$="/programmes"]').click();

    // The programme detail operation shows its example answer and its own 404 code.
    await page.locator('.opblock-summary-path[data-path$="/{programmeId}"]').click();
    const detail = page.locator('.opblock.is-open');
    await expect.poll(() => detail.locator('.parameters').textContent()).toMatch(/programmeId/);
    const detailResponses = detail.locator('.responses-wrapper');
    await expect.poll(() => detailResponses.textContent()).toContain('PROGRAMME_NOT_FOUND');
    const example = detailResponses.locator('.response[data-code="200"] .microlight').first();
    const shown = JSON.parse((await example.textContent()) ?? '{}');
    expect(shown.programme).toMatchObject({
      title: 'Garden Rescue',
      subTitle: 'The Orchard',
      episodeNumber: { season: 3, episode: 5, episodes: 13 },
      credits: [{ role: 'presenter', name: 'Ada Moss', character: '' }, expect.anything()],
    });

    // The getting-started curl line is this deployment's, and copies.
    const curl = `curl -H "Authorization: Bearer YOUR_KEY" ${server.url}/api/v1/countries`;
    expect(await page.locator('#curl-countries').textContent()).toBe(curl);
    await page.locator('button[data-copy-target="curl-countries"]').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(curl);

    // One page heading: Swagger UI's title of the document is heard as a section of it.
    const levels = await page
      .locator('h1')
      .evaluateAll((nodes) =>
        nodes.map((n) => [n.textContent?.slice(0, 15), n.getAttribute('aria-level')]),
      );
    expect(levels).toEqual([
      ['Getting started', null],
      [expect.stringMatching(/^Onair API/), '2'],
    ]);

    await page.screenshot({ path: join(RESULTS, 'docs-page.png'), fullPage: true });
    expect(requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });

  it('/docs on a phone: the error codes and the tags fit the card, nothing scrolls sideways', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/docs`);
    await page.locator('.opblock-tag').first().waitFor({ timeout: 20_000 });
    // Measured in the page (a string: these tests are compiled without the DOM's types).
    const fit = (await page.evaluate(`(() => {
      const right = document.querySelector('#reference').getBoundingClientRect().right;
      const table = document.querySelector('.swagger-ui .renderedMarkdown table');
      // Every cell of the error codes inside the card, the meaning readable under its code.
      const cells = [...table.querySelectorAll('td')].map((td) => td.getBoundingClientRect());
      const tags = [...document.querySelectorAll('.swagger-ui .opblock-tag small')].map(
        (small) => small.getBoundingClientRect().width,
      );
      return {
        pageScrolls: document.documentElement.scrollWidth > window.innerWidth,
        tableScrolls: table.scrollWidth > table.clientWidth,
        cellsPastCard: cells.filter((r) => r.right > right + 1).length,
        cells: cells.length,
        narrowestTag: Math.min(...tags),
      };
    })()`)) as {
      pageScrolls: boolean;
      tableScrolls: boolean;
      cellsPastCard: number;
      cells: number;
      narrowestTag: number;
    };
    expect(fit.cells).toBeGreaterThan(30);
    expect(fit).toMatchObject({ pageScrolls: false, tableScrolls: false, cellsPastCard: 0 });
    // A tag's description takes the card's width under the tag, not a column of single words.
    expect(fit.narrowestTag).toBeGreaterThan(200);
    await page.screenshot({ path: join(RESULTS, 'docs-page-phone.png'), fullPage: true });
    await context.close();
  });

  it('/playground: country → channel → schedule, only from the preview API', async () => {
    const { page, problems, requests } = await watchedPage();
    await page.goto(`${server.url}/playground`);
    const country = page.getByLabel('Country');
    await expect.poll(() => country.isEnabled()).toBe(true);
    const channelButtons = page.locator('#pg-channels button');
    const status = page.locator('#pg-status');
    // The first country (DE, one preview channel) is chosen: a singular, not "channel(s)".
    expect(await country.inputValue()).toBe('DE');
    await expect.poll(() => status.textContent()).toBe('1 channel in DE');
    // A channel's name finds it in any country, not only the one chosen (Onair News is UK's).
    const channelSearch = page.getByRole('searchbox', { name: 'Channel' });
    await channelSearch.fill('news');
    await expect.poll(() => channelButtons.allTextContents()).toEqual(['Onair News']);
    expect(await status.textContent()).toBe('1 channel in any country matches.');
    expect(await page.locator('#pg-channels li').textContent()).toBe('Onair News UK');
    await channelSearch.fill('zzz');
    await expect
      .poll(() => status.textContent())
      .toBe('No preview channel in any country matches.');
    await channelSearch.fill('');
    await country.selectOption('UK');
    await expect
      .poll(() => channelButtons.allTextContents())
      .toEqual(['Kelpie Kids', 'Onair News']);
    await expect.poll(() => status.textContent()).toBe('2 channels in UK');
    // Toggle buttons: none pressed before a choice.
    expect(
      await channelButtons.evaluateAll((b) => b.map((n) => n.getAttribute('aria-pressed'))),
    ).toEqual(['false', 'false']);

    await channelSearch.fill('news');
    await expect.poll(() => channelButtons.allTextContents()).toEqual(['Onair News']);
    await page.getByRole('button', { name: 'Onair News', exact: true }).click();
    expect(
      await page
        .getByRole('button', { name: 'Onair News', exact: true })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    // The schedule, the page's last card, comes into view with its heading focused.
    const scheduleHeading = page.locator('#pg-channel-name');
    await expect.poll(() => scheduleHeading.textContent()).toBe('Onair News (UK)');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('pg-channel-name');
    await expect
      .poll(() =>
        scheduleHeading.evaluate((h, height) => {
          const { top, bottom } = h.getBoundingClientRect();
          return top >= 0 && bottom <= height;
        }, 900),
      )
      .toBe(true);
    // Back to the country's list: the chosen channel is still shown pressed, the other not.
    await channelSearch.fill('');
    await expect
      .poll(() => channelButtons.allTextContents())
      .toEqual(['Kelpie Kids', 'Onair News']);
    expect(
      await channelButtons.evaluateAll((b) => b.map((n) => n.getAttribute('aria-pressed'))),
    ).toEqual(['false', 'true']);

    const dayHeadings = page.locator('.timeline-day');
    const todayName = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'UTC',
      weekday: 'long',
      day: 'numeric',
      month: 'long',
    });
    const today = `${todayName.format(new Date())} (UTC)`;
    const tomorrow = `${todayName.format(new Date(Date.now() + 86_400_000))} (UTC)`;
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today]);
    expect(await page.locator('.timeline-item').count()).toBeGreaterThan(5);
    expect(await page.locator('#pg-curl').textContent()).toMatch(
      new RegExp(
        `^curl -H "Authorization: Bearer YOUR_KEY" "${server.url}/api/v1/channels/[0-9a-f-]{36}/programmes\\?days=today"$`,
      ),
    );
    await page.screenshot({ path: join(RESULTS, 'playground.png'), fullPage: true });

    // A title is a button: pressing it shows the programme's details under it, from the preview
    // detail route; pressing it again hides them.
    const garden = page.locator('.timeline-item', { hasText: 'Garden Rescue' }).first();
    const gardenTitle = garden.getByRole('button', { name: 'Garden Rescue' });
    expect(await gardenTitle.getAttribute('aria-expanded')).toBe('false');
    await gardenTitle.click();
    expect(await gardenTitle.getAttribute('aria-expanded')).toBe('true');
    const gardenDetails = page.locator(`#${await gardenTitle.getAttribute('aria-controls')}`);
    await expect.poll(() => gardenDetails.locator('dl').isVisible()).toBe(true);
    const facts = async (details: typeof gardenDetails) =>
      Object.fromEntries(
        await details
          .locator('dt')
          .evaluateAll((terms) =>
            terms.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]),
          ),
      );
    const gardenFacts = await facts(gardenDetails);
    expect(gardenFacts).toMatchObject({
      Presenter: 'Ada Moss',
      Guest: 'Ben Thorn',
      Date: '2025',
      Length: '1 h',
      Rating: 'U (BBFC)',
      Stars: '4/5',
      Video: 'HDTV, 16:9, colour',
      Audio: 'stereo',
      Subtitles: 'teletext, en',
      Images: 'https://img.onair.example/garden-rescue.jpg',
      Links: 'https://onair.example/shows/garden-rescue',
    });
    expect(gardenFacts.Episode).toMatch(/^Season 3, episode \d+ of 13 \(S3 E\d+\)$/);
    expect(await gardenDetails.locator('.pg-subtitle').textContent()).toMatch(/\w/);
    // Images and links are links, never images loaded from another site.
    expect(
      await gardenDetails
        .getByRole('link')
        .evaluateAll((a) => a.map((n) => n.getAttribute('href'))),
    ).toEqual([
      'https://img.onair.example/garden-rescue.jpg',
      'https://onair.example/shows/garden-rescue',
    ]);
    expect(await gardenDetails.locator('img').count()).toBe(0);
    await page.screenshot({ path: join(RESULTS, 'playground-details.png'), fullPage: true });
    await gardenTitle.click();
    expect(await gardenTitle.getAttribute('aria-expanded')).toBe('false');
    expect(await gardenDetails.isHidden()).toBe(true);

    // By keyboard: focus the film's title and press Enter; its cast comes with their parts.
    const filmTitle = page
      .locator('.timeline-item', { hasText: 'The Long Film' })
      .first()
      .getByRole('button', { name: 'The Long Film' });
    await filmTitle.focus();
    await page.keyboard.press('Enter');
    const filmDetails = page.locator(`#${await filmTitle.getAttribute('aria-controls')}`);
    await expect.poll(() => filmDetails.locator('dl').isVisible()).toBe(true);
    expect(await facts(filmDetails)).toMatchObject({
      Director: 'Mara Ellison',
      Cast: 'Nico Aldana (Captain Reyes), June Park (Dr. Hale)',
      Writer: 'Mara Ellison',
      Composer: 'Oskar Veit',
      Rating: 'PG-13 (MPAA)',
    });
    await page.keyboard.press('Space');
    await expect.poll(() => filmDetails.isHidden()).toBe(true);

    await page.getByLabel('Tomorrow', { exact: true }).check();
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([tomorrow]);
    // Even "all" and a long lookback show only today and tomorrow: preview data.
    await page.getByLabel('All', { exact: true }).check();
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today, tomorrow]);
    const daysBox = page.getByLabel('Number of days');
    // It says what `days=N` is: programmes from N days ago on, the future included.
    expect(
      await page.locator('.pg-days label', { has: daysBox }).evaluate((l) => l.textContent),
    ).toMatch(/^\s*Last\s+days and all upcoming\s*$/);
    await daysBox.fill('30');
    await daysBox.press('Enter');
    await daysBox.blur();
    await expect.poll(() => page.locator('#pg-request').textContent()).toMatch(/days=30$/);
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today, tomorrow]);
    // The box and the request agree: out of 1–365 is clamped in the box too, and said.
    const problem = page.locator('#pg-lookback-problem');
    for (const [typed, sent] of [
      ['999', '365'],
      ['-3', '1'],
    ] as const) {
      await daysBox.fill(typed);
      await daysBox.press('Enter');
      await expect
        .poll(() => page.locator('#pg-request').textContent())
        .toMatch(new RegExp(`days=${sent}$`));
      expect(await daysBox.inputValue()).toBe(sent);
      expect(await page.locator('#pg-curl').textContent()).toMatch(new RegExp(`days=${sent}"$`));
      expect(await problem.textContent()).toBe(`Days go from 1 to 365: ${typed} became ${sent}.`);
    }
    // A fraction is refused in words, and not sent.
    await daysBox.fill('2.5');
    await daysBox.press('Enter');
    await expect.poll(() => problem.textContent()).toBe('Days: a whole number from 1 to 365.');
    expect(await daysBox.getAttribute('aria-invalid')).toBe('true');
    expect(await daysBox.inputValue()).toBe('2.5');
    expect(await page.locator('#pg-request').textContent()).toBe('');
    expect(await page.locator('#pg-customer').isHidden()).toBe(true);
    expect(await page.locator('#pg-timeline').textContent()).toBe(
      'Give a whole number of days from 1 to 365.',
    );
    expect(requests.filter((url) => url.includes('days=2.5'))).toEqual([]);
    await daysBox.fill('30');
    await daysBox.press('Enter');
    await expect.poll(() => page.locator('#pg-request').textContent()).toMatch(/days=30$/);
    expect(await problem.textContent()).toBe('');
    expect(await daysBox.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#pg-customer').isVisible()).toBe(true);
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today, tomorrow]);

    // The curl line's Copy button says "Copied", then its label again.
    const copy = page.locator('button[data-copy-target="pg-curl"]');
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(
      await page.locator('#pg-curl').textContent(),
    );
    await expect.poll(() => copy.textContent(), { timeout: 4000 }).toBe('Copy');
    // ...and at once when the line it copies changes.
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    const copiedAt = Date.now();
    await page.getByLabel('Today', { exact: true }).check();
    await expect.poll(() => copy.textContent(), { timeout: 1000 }).toBe('Copy');
    expect(Date.now() - copiedAt).toBeLessThan(1900);
    expect(await page.locator('#pg-curl').textContent()).toMatch(/days=today"$/);

    // "When is it on?": a programme search over the preview, from now on. Before one, no
    // request line.
    expect(await page.locator('#pg-find-request-line').isHidden()).toBe(true);
    expect(await page.locator('#pg-find-more').isHidden()).toBe(true);
    await page.getByLabel('Programme', { exact: true }).fill('GARDEN res');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const found = page.locator('#pg-find-results .pg-found');
    await expect.poll(() => found.count()).toBeGreaterThan(0);
    expect(new Set(await found.locator('.timeline-title').allTextContents())).toEqual(
      new Set(['Garden Rescue']),
    );
    expect(await page.locator('#pg-find-request').textContent()).toMatch(
      /^\/playground\/api\/programmes\/search\?q=GARDEN\+res&limit=20$/,
    );
    // Times come under days that say they are UTC, as in the timeline.
    const foundDays = await page.locator('#pg-find-results .timeline-day').allTextContents();
    expect(foundDays.length).toBeGreaterThan(0);
    expect(foundDays.every((day) => day === today || day === tomorrow)).toBe(true);
    expect(await page.locator('#pg-find-note').textContent()).toMatch(/^\d+ programmes? found\.$/);
    expect(await page.locator('#pg-find-more').isHidden()).toBe(true);

    await page.getByRole('tab', { name: 'JSON' }).click();
    const json = JSON.parse((await page.locator('#pg-json').textContent()) ?? '{}');
    expect(json).toMatchObject({ preview: true, channelId: expect.any(String) });
    expect(json.programmes.length).toBeGreaterThan(10);
    await page.screenshot({ path: join(RESULTS, 'playground-json.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.screenshot({ path: join(RESULTS, 'playground-phone.png'), fullPage: true });

    const paths = requests.map((url) => new URL(url));
    expect(paths.filter((url) => url.origin !== server.url)).toEqual([]);
    expect(paths.filter((url) => url.pathname.startsWith('/api/'))).toEqual([]);
    expect(
      paths.filter((url) => url.pathname.startsWith('/playground/api/')).length,
    ).toBeGreaterThan(4);
    // Each programme's details were asked for once, from the preview detail route.
    expect(
      paths.filter((url) =>
        /^\/playground\/api\/channels\/[0-9a-f-]{36}\/programmes\/\d{19}$/.test(url.pathname),
      ).length,
    ).toBe(2);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });

  it("/playground: what's on now/next and the guide grid, a programme's details, by keyboard too", async () => {
    const { page, problems, requests } = await watchedPage();
    await page.goto(`${server.url}/playground`);
    const country = page.getByLabel('Country');
    await expect.poll(() => country.isEnabled()).toBe(true);
    await country.selectOption('UK');
    await expect.poll(() => page.locator('#pg-on-heading').textContent()).toBe("What's on (UK)");

    // Now / next: each preview channel of the country, a programme on now and one next (the
    // demo guide runs without gaps), as the API answered them.
    const names = page.locator('#pg-now .pg-now-name');
    await expect.poll(() => names.allTextContents()).toEqual(['Kelpie Kids', 'Onair News']);
    type Slot = { title: string; start: string } | null;
    const answer = await page.evaluate(async () => {
      const response = await fetch('/playground/api/now?country=UK');
      return (await response.json()) as {
        channels: { channelId: string; now: Slot; next: Slot }[];
      };
    });
    const shown = await page
      .locator('#pg-now .pg-now-channel')
      .evaluateAll((items) =>
        items.map((item) =>
          [...item.querySelectorAll('.pg-slot')].map(
            (slot) => slot.querySelector('.timeline-title')?.textContent ?? null,
          ),
        ),
      );
    expect(shown).toEqual(
      answer.channels.map((c) => [c.now?.title ?? null, c.next?.title ?? null]),
    );
    // Their times say they are UTC, as the timeline's and the grid's do.
    const times = await page.locator('#pg-now .pg-slot .timeline-time').allTextContents();
    expect(times.length).toBe(answer.channels.length * 2);
    for (const time of times) expect(time).toMatch(/^\d\d:\d\d–\d\d:\d\d UTC$/);
    // The demo guide runs without gaps, and the preview takes in the programme on air as the
    // UTC day begins: something is on now and next at any hour, just after midnight too.
    for (const channel of answer.channels) {
      expect([channel.channelId, channel.now !== null, channel.next !== null]).toEqual([
        channel.channelId,
        true,
        true,
      ]);
    }
    expect(await page.locator('#pg-on-request').textContent()).toBe(
      '/playground/api/now?country=UK',
    );

    // Its title opens the programme's details under it, from the preview detail route.
    const nowTitle = page
      .locator('#pg-now .pg-now-channel')
      .nth(1)
      .locator('.timeline-title')
      .first();
    await nowTitle.click();
    const nowDetails = page.locator(`#${await nowTitle.getAttribute('aria-controls')}`);
    await expect
      .poll(() => nowDetails.locator('.pg-detail-request').textContent())
      .toMatch(/^GET \/playground\/api\/channels\/[0-9a-f-]{36}\/programmes\/\d{19}$/);
    await page.screenshot({ path: join(RESULTS, 'playground-now.png'), fullPage: true });

    // The guide, by keyboard: its tab, then a programme of the grid. The tab list is one Tab
    // stop (the selected tab), the arrow keys move along it and select.
    const guideTab = page.getByRole('tab', { name: 'Guide' });
    const nowTab = page.getByRole('tab', { name: 'Now / next' });
    expect([
      await nowTab.getAttribute('tabindex'),
      await guideTab.getAttribute('tabindex'),
    ]).toEqual(['0', '-1']);
    await nowTab.focus();
    await page.keyboard.press('ArrowRight');
    expect(await guideTab.getAttribute('aria-selected')).toBe('true');
    // A string expression: the test is compiled without the DOM types.
    expect(await page.evaluate('document.activeElement?.id')).toBe('pg-tab-guide');
    expect([
      await nowTab.getAttribute('tabindex'),
      await guideTab.getAttribute('tabindex'),
    ]).toEqual(['-1', '0']);

    expect(await page.locator('#pg-now-panel').isHidden()).toBe(true);
    const rows = page.locator('#pg-guide .pg-grid-row:not(.pg-grid-head)');
    await expect
      .poll(() => rows.locator('.pg-grid-name').allTextContents())
      .toEqual(['Kelpie Kids', 'Onair News']);
    expect(await page.locator('#pg-on-request').textContent()).toBe(
      '/playground/api/guide?country=UK&hours=3',
    );
    // The ruler starts at the window's start (now, UTC) and marks the full hours after it.
    const hours = await page.locator('#pg-guide .pg-grid-hour').allTextContents();
    expect(hours.length).toBeGreaterThanOrEqual(3);
    expect(hours.slice(1).every((hour) => /^\d{2}:00$/.test(hour))).toBe(true);
    // Programmes sit in one row per channel, in start order, side by side.
    const news = rows.nth(1).locator('.pg-grid-programme');
    expect(await news.count()).toBeGreaterThanOrEqual(2);
    const lefts = await news.evaluateAll((buttons) =>
      buttons.map((b) => b.getBoundingClientRect().left),
    );
    expect(lefts).toEqual([...lefts].sort((a, b) => a - b));
    const tops = await news.evaluateAll((buttons) =>
      buttons.map((b) => Math.round(b.getBoundingClientRect().top)),
    );
    expect(new Set(tops).size).toBe(1);

    const details = page.locator('#pg-guide-details');
    const first = news.first();
    const firstTitle = (await first.locator('.pg-grid-title').textContent()) ?? '';
    await first.focus();
    await page.keyboard.press('Enter');
    expect(await first.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => details.locator('.pg-detail-request').isVisible()).toBe(true);
    expect(await details.locator('.pg-guide-heading').textContent()).toContain(firstTitle);
    expect(await details.locator('.pg-guide-heading').textContent()).toContain('Onair News');
    await page.screenshot({ path: join(RESULTS, 'playground-guide.png'), fullPage: true });

    // Another programme moves the details to it; pressing it again closes them.
    const second = news.nth(1);
    await second.click();
    expect(await first.getAttribute('aria-expanded')).toBe('false');
    const secondTitle = (await second.locator('.pg-grid-title').textContent()) ?? '';
    await expect
      .poll(() => details.locator('.pg-guide-heading strong').textContent())
      .toBe(secondTitle);
    await second.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => details.isHidden()).toBe(true);
    expect(await second.getAttribute('aria-expanded')).toBe('false');

    // Guide text is text: no markup from the data, no images.
    expect(await page.locator('#pg-guide img, #pg-now img').count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(RESULTS, 'playground-guide-phone.png'), fullPage: true });

    const paths = requests.map((url) => new URL(url));
    expect(paths.filter((url) => url.origin !== server.url)).toEqual([]);
    expect(paths.filter((url) => url.pathname.startsWith('/api/'))).toEqual([]);
    const asked = (pathname: string) =>
      paths.filter((url) => url.pathname === pathname).map((url) => url.search);
    expect(asked('/playground/api/guide')).toEqual(['?country=UK&hours=3']);
    expect(asked('/playground/api/now')).toContain('?country=UK');
    expect(
      paths.filter((url) =>
        /^\/playground\/api\/channels\/[0-9a-f-]{36}\/programmes\/\d{19}$/.test(url.pathname),
      ).length,
    ).toBe(3);
    // Home goes back to the first tab, and selects it.
    await guideTab.focus();
    await page.keyboard.press('Home');
    expect(await nowTab.getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#pg-guide-panel').isHidden()).toBe(true);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });

  it('/playground: a programme ending just after the guide window starts pushes none below', async () => {
    const { page, problems } = await watchedPage();
    // The preview's own guide answer, its window moved to start 20 s before a programme ends
    // (as at hh:29:40 before a programme ending at hh:30): that one has no minute of its own.
    // Asked from noon UTC today (the preview shows today and tomorrow): at night the demo's
    // channels may show fewer than three programmes in three hours (a film, the news through
    // the night), and this test must not depend on the hour it runs at.
    const noon = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000);
    const real = await page.request.get(
      `${server.url}/playground/api/guide?country=UK&hours=3&from=${noon.toISOString()}`,
    );
    expect(real.status()).toBe(200);
    const body = (await real.json()) as {
      from: string;
      channels: { name: string; programmes: { stop: string; title: string }[] }[];
    };
    const channel = body.channels.find((c) => c.programmes.length >= 3);
    const ending = channel?.programmes[0];
    if (channel === undefined || ending === undefined) throw new Error('no channel to shift');
    const xmltv = (ms: number) =>
      `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
    const stopMs = Date.parse(
      ending.stop.replace(
        /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}) \+0000$/,
        '$1-$2-$3T$4:$5:$6Z',
      ),
    );
    body.from = xmltv(stopMs - 20_000);
    await page.route('**/playground/api/guide?**', (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify(body) }),
    );
    await page.goto(`${server.url}/playground`);
    await page.getByRole('tab', { name: 'Guide' }).click();
    const row = page.locator('#pg-guide .pg-grid-row:not(.pg-grid-head)', {
      hasText: channel.name,
    });
    const buttons = row.locator('.pg-grid-programme');
    await expect.poll(() => buttons.count()).toBeGreaterThan(0);
    // Every programme but the ending one, from the next on.
    expect(await buttons.count()).toBe(channel.programmes.length - 1);
    expect(await buttons.first().locator('.pg-grid-title').textContent()).toBe(
      channel.programmes[1]?.title,
    );
    const tops = await buttons.evaluateAll((all) =>
      all.map((b) => Math.round(b.getBoundingClientRect().top)),
    );
    expect(new Set(tops).size).toBe(1);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
  it('/playground: "When is it on?" pages through its results, and its examples find something', async () => {
    const { page, problems, requests } = await watchedPage();
    await page.goto(`${server.url}/playground`);
    const box = page.getByLabel('Programme', { exact: true });
    const found = page.locator('#pg-find-results .pg-found');
    const note = page.locator('#pg-find-note');
    const more = page.getByRole('button', { name: 'More results' });
    // Each example the box gives finds something in the demo guide.
    const placeholder = (await box.getAttribute('placeholder')) ?? '';
    const examples = placeholder.replace(/^For example: /, '').split(', ');
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      await box.fill(example);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await expect.poll(() => note.textContent()).toMatch(/found/);
      expect(await found.count(), example).toBeGreaterThan(0);
    }
    // "news" finds more than a page (20) in the preview's two days: the rest come on request.
    await box.fill('news');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect
      .poll(() => note.textContent())
      .toBe('The first 20 programmes found; there are more.');
    expect(await found.count()).toBe(20);
    expect(await more.isVisible()).toBe(true);
    const firstPage = await found.evaluateAll((items) => items.map((item) => item.textContent));
    await more.click();
    await expect.poll(() => found.count()).toBeGreaterThan(20);
    // The next page follows the first: nothing shown twice, the first page kept.
    const both = await found.evaluateAll((items) => items.map((item) => item.textContent));
    expect(both.slice(0, 20)).toEqual(firstPage);
    expect(await page.locator('#pg-find-request').textContent()).toMatch(
      /^\/playground\/api\/programmes\/search\?q=news&limit=20&cursor=[\w-]+$/,
    );
    // Pages until the last, which says how many there were and offers no more.
    for (let pages = 2; (await more.isVisible()) && pages < 20; pages++) {
      const shown = await found.count();
      await more.click();
      await expect.poll(() => found.count()).toBeGreaterThan(shown);
    }
    const total = await found.count();
    await expect.poll(() => note.textContent()).toBe(`${total} programmes found.`);
    expect(await more.isHidden()).toBe(true);
    // Each day heading once, in order, all saying UTC.
    const days = await page.locator('#pg-find-results .timeline-day').allTextContents();
    expect(new Set(days).size).toBe(days.length);
    expect(days.every((day) => day.endsWith(' (UTC)'))).toBe(true);
    const cursors = requests.filter(
      (url) => url.includes('/programmes/search?') && url.includes('cursor='),
    );
    expect(cursors.length).toBeGreaterThan(0);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });

  it('/playground without JavaScript: only the note that it needs it, no dead controls', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/playground`);
    expect(await page.content()).toContain('The playground needs JavaScript.');
    for (const id of ['#pg-country', '#pg-search', '#pg-find-q']) {
      expect(await page.locator(id).isVisible(), id).toBe(false);
    }
    await context.close();
    // With it, they are there.
    const { page: scripted } = await watchedPage();
    await scripted.goto(`${server.url}/playground`);
    await scripted.locator('#pg-find-q').waitFor({ state: 'visible' });
    expect(await scripted.locator('#pg-country').isVisible()).toBe(true);
    await scripted.context().close();
  });

  it('/playground on a phone: request lines wrap, the page never scrolls sideways', async () => {
    const { page, problems } = await watchedPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = () =>
      page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    await page.goto(`${server.url}/playground`);
    await expect.poll(() => page.getByLabel('Country').isEnabled()).toBe(true);
    await page.getByLabel('Country').selectOption('UK');
    // UK's now/next in place (the first country's, shown before, is replaced: a click on it
    // could land on a title that is gone).
    await expect
      .poll(() => page.locator('#pg-on-request').textContent())
      .toBe('/playground/api/now?country=UK');
    await expect.poll(() => page.locator('#pg-now').getAttribute('aria-busy')).toBeNull();
    // A programme's details under Now/next, with its long request line.
    const nowTitle = page.locator('#pg-now .timeline-title').first();
    await expect.poll(() => nowTitle.isVisible()).toBe(true);
    await nowTitle.click();
    const nowDetails = page.locator(`#${await nowTitle.getAttribute('aria-controls')}`);
    await expect.poll(() => nowDetails.locator('.pg-detail-request').isVisible()).toBe(true);
    expect(await overflow()).toBe(0);
    const height = await nowDetails
      .locator('.pg-detail-request')
      .evaluate((p) => p.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(30); // two lines or more (0.85rem each): wrapped, not cut
    // The guide grid's details.
    await page.getByRole('tab', { name: 'Guide' }).click();
    const cell = page.locator('#pg-guide .pg-grid-programme').first();
    await expect.poll(() => cell.isVisible()).toBe(true);
    await cell.click();
    await expect
      .poll(() => page.locator('#pg-guide-details .pg-detail-request').isVisible())
      .toBe(true);
    expect(await overflow()).toBe(0);
    // A found programme's details.
    await page.getByLabel('Programme', { exact: true }).fill('garden');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const foundTitle = page.locator('#pg-find-results .timeline-title').first();
    await expect.poll(() => foundTitle.isVisible()).toBe(true);
    await foundTitle.click();
    await expect
      .poll(() => page.locator('#pg-find-results .pg-detail-request').first().isVisible())
      .toBe(true);
    expect(await overflow()).toBe(0);
    // A schedule's, and its JSON.
    await page.getByRole('button', { name: 'Kelpie Kids', exact: true }).click();
    const title = page.locator('#pg-timeline .timeline-title').first();
    await expect.poll(() => title.isVisible()).toBe(true);
    await title.click();
    await expect
      .poll(() => page.locator('#pg-timeline .pg-detail-request').first().isVisible())
      .toBe(true);
    expect(await overflow()).toBe(0);
    await page.getByRole('tab', { name: 'JSON' }).click();
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: join(RESULTS, 'playground-phone-details.png'), fullPage: true });
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });

  it('/playground: a 429 is waited out, counting down, and the request tried again', async () => {
    const { page, problems } = await watchedPage();
    // The preview's own 429 (as its limiter answers it), once for each of these requests.
    const limited = new Set([
      '/playground/api/countries',
      '/playground/api/now',
      '/playground/api/programmes/search',
    ]);
    const refused: string[] = [];
    await page.route('**/playground/api/**', async (route) => {
      const { pathname } = new URL(route.request().url());
      if (!limited.delete(pathname)) return route.continue();
      refused.push(pathname);
      return route.fulfill({
        status: 429,
        headers: { 'retry-after': '2', 'content-type': 'application/json' },
        body: JSON.stringify({
          error: 'Too many playground requests from this address; try again shortly',
          code: 'RATE_LIMITED',
        }),
      });
    });
    // The console reports each refused fetch; those are expected here.
    await page.goto(`${server.url}/playground`);
    const status = page.locator('#pg-status');
    await expect
      .poll(() => status.textContent())
      .toBe('Too many preview requests for now: trying again in 2 s…');
    expect(await page.getByLabel('Country').isDisabled()).toBe(true);
    await expect
      .poll(() => status.textContent())
      .toBe('Too many preview requests for now: trying again in 1 s…');
    // Then the page loads by itself: countries, the first one's channels, what is on.
    await expect.poll(() => page.getByLabel('Country').isEnabled(), { timeout: 5000 }).toBe(true);
    await expect.poll(() => status.textContent()).toBe('1 channel in DE');
    await expect
      .poll(() => page.locator('#pg-now .pg-now-name').allTextContents(), { timeout: 5000 })
      .toEqual(['Rundfunk Süd']);
    // A later request too: the search says it waits, then shows its results.
    await page.getByLabel('Programme', { exact: true }).fill('garden');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('#pg-find-note').textContent()).toMatch(/trying again in/);
    await expect
      .poll(() => page.locator('#pg-find-results .pg-found').count(), { timeout: 5000 })
      .toBeGreaterThan(0);
    expect(refused).toEqual([
      '/playground/api/countries',
      '/playground/api/now',
      '/playground/api/programmes/search',
    ]);
    expect(
      problems.filter((problem) => !problem.includes('429')),
      problems.join('\n'),
    ).toEqual([]);
    await page.context().close();
  });

  it('/playground: a programme cut by the guide window keeps its start time readable', async () => {
    const { page, problems } = await watchedPage();
    // The preview's guide from noon UTC, its window moved to start 8 minutes before the first
    // programme of a channel ends (as at 18:22 for one of 18:00–18:30).
    const noon = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000);
    const real = await page.request.get(
      `${server.url}/playground/api/guide?country=UK&hours=3&from=${noon.toISOString()}`,
    );
    const body = (await real.json()) as {
      from: string;
      channels: { name: string; programmes: { start: string; stop: string; title: string }[] }[];
    };
    const channel = body.channels.find((c) => c.programmes.length >= 3);
    const cut = channel?.programmes[0];
    if (channel === undefined || cut === undefined) throw new Error('no channel to shift');
    const ms = (xmltv: string) =>
      Date.parse(
        xmltv.replace(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}) \+0000$/, '$1-$2-$3T$4:$5:$6Z'),
      );
    const xmltv = (at: number) =>
      `${new Date(at).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
    body.from = xmltv(ms(cut.stop) - 8 * 60_000);
    await page.route('**/playground/api/guide?**', (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify(body) }),
    );
    await page.goto(`${server.url}/playground`);
    await page.getByRole('tab', { name: 'Guide' }).click();
    const row = page.locator('#pg-guide .pg-grid-row:not(.pg-grid-head)', {
      hasText: channel.name,
    });
    const first = row.locator('.pg-grid-programme').first();
    await expect.poll(() => first.isVisible()).toBe(true);
    // Its start time shows whole, inside the cell; its title and times are its tooltip and name.
    const time = first.locator('.pg-grid-time');
    expect(await time.textContent()).toBe(cut.start.slice(8, 10) + ':' + cut.start.slice(10, 12));
    const fits = await first.evaluate((button) => {
      const t = button.querySelector('.pg-grid-time');
      if (t === null) return false;
      const inner = t.getBoundingClientRect();
      const outer = button.getBoundingClientRect();
      return (
        t.scrollWidth <= t.clientWidth + 1 && inner.left >= outer.left && inner.right <= outer.right
      );
    });
    expect(fits).toBe(true);
    expect(await first.getAttribute('title')).toContain(cut.title);
    // Its name says its channel first: a screen reader moving along the grid knows the row.
    const label = (await first.getAttribute('aria-label')) ?? '';
    expect(label.startsWith(`${channel.name}: `)).toBe(true);
    expect(label).toContain(cut.title);
    // The grid stays aligned: each row's programmes in one line, its ruler over the same track.
    const tops = await row
      .locator('.pg-grid-programme')
      .evaluateAll((all) => all.map((b) => Math.round(b.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    const tracks = await page
      .locator('#pg-guide .pg-grid-track')
      .evaluateAll((all) =>
        all.map((t) => [
          Math.round(t.getBoundingClientRect().left),
          Math.round(t.getBoundingClientRect().width),
        ]),
      );
    expect(new Set(tracks.map((t) => t.join()))).toHaveProperty('size', 1);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(
      true,
    );
    await page.locator('#pg-on').screenshot({ path: join(RESULTS, 'playground-guide-cut.png') });
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
});
