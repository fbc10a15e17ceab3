// The playground page: country → what is on (now/next, a guide grid) and channel → schedule →
// a programme's details, all from the keyless preview API named by #playground (never the
// customer API). Guide text goes into the
// page with textContent only, and only http(s) URLs become links.
(() => {
  const root = document.getElementById('playground');
  if (root === null) return;
  // Sent hidden: they work only with this script.
  root.hidden = false;
  document.getElementById('pg-find').hidden = false;
  const previewApi = root.getAttribute('data-preview-api') || '/playground/api';
  const customerApi = root.getAttribute('data-customer-api') || '';
  const $ = (id) => document.getElementById(id);
  const countrySelect = $('pg-country');
  const search = $('pg-search');
  const channelList = $('pg-channels');
  const status = $('pg-status');
  const schedule = $('pg-schedule');
  const lookback = $('pg-lookback');
  const whatsOn = $('pg-on');
  const state = {
    channel: null,
    listRequest: 0,
    scheduleRequest: 0,
    onView: 'now',
    onRequest: 0,
    findRequest: 0,
    findQuery: '',
    findNext: null,
    findDay: '',
    findShown: 0,
  };

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * GET a preview route; resolves to the parsed body, or throws an Error with the API's message.
   * A 429 is waited out and tried again (the page would otherwise stay stuck until reloaded):
   * `waiting` is told each second how long is left, and `wanted` stops the retries of an answer
   * nobody waits for any more (a newer choice, a closed panel).
   */
  async function preview(path, { wanted = () => true, waiting = () => {} } = {}) {
    for (;;) {
      const response = await fetch(previewApi + path, { headers: { accept: 'application/json' } });
      const body = await response.json().catch(() => null);
      if (response.ok) return body;
      const message = (body && body.error) || `Request failed (${response.status})`;
      if (response.status !== 429 || !wanted()) throw new Error(message);
      // Retry-After is whole seconds (the preview's window is a minute at most).
      const after = Number.parseInt(response.headers.get('retry-after') || '', 10);
      for (
        let left = Number.isFinite(after) ? Math.min(Math.max(after, 1), 120) : 5;
        left > 0;
        left--
      ) {
        waiting(`Too many preview requests for now: trying again in ${left} s…`);
        await sleep(1000);
        if (!wanted()) throw new Error(message);
      }
      waiting('Trying again…');
    }
  }

  /**
   * Copy buttons (public/account.js copies and says "Copied"): back to their own label after a
   * moment, and at once when the text they copy changes, so the word never stays wrong.
   */
  const COPIED_FOR_MS = 2000;
  const copyButtons = [...document.querySelectorAll('#pg-schedule [data-copy-target]')].map(
    (button) => ({ button, label: button.textContent, timer: null }),
  );
  function resetCopy(copy) {
    clearTimeout(copy.timer);
    copy.timer = null;
    if (copy.button.textContent !== copy.label) copy.button.textContent = copy.label;
  }
  for (const copy of copyButtons) {
    new window.MutationObserver(() => {
      if (copy.button.textContent === copy.label) return;
      clearTimeout(copy.timer);
      copy.timer = setTimeout(() => resetCopy(copy), COPIED_FOR_MS);
    }).observe(copy.button, { childList: true, characterData: true, subtree: true });
  }
  /** Sets the text a copy button copies, putting the button back to its label if it changed. */
  function setCopyText(node, text) {
    if (node.textContent === text) return;
    node.textContent = text;
    for (const copy of copyButtons) {
      if (copy.button.getAttribute('data-copy-target') === node.id) resetCopy(copy);
    }
  }

  /** "1 channel", "2 channels". */
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'error' : 'muted';
  }

  function showChannels(channels, emptyText, foundText) {
    channelList.replaceChildren();
    for (const channel of channels) {
      const id = channel.id || channel.channelId;
      const item = element('li');
      const button = element('button', 'secondary', channel.name);
      button.type = 'button';
      button.setAttribute('data-channel-id', id);
      button.setAttribute(
        'aria-pressed',
        String(state.channel !== null && state.channel.id === id),
      );
      button.addEventListener('click', () => {
        state.channel = { id, name: channel.name, country: channel.country };
        for (const other of channelList.querySelectorAll('button')) {
          other.setAttribute('aria-pressed', String(other === button));
        }
        loadSchedule();
        showSchedule();
      });
      item.append(button, element('span', 'muted', ` ${channel.country}`));
      channelList.append(item);
    }
    say(channels.length === 0 ? emptyText : foundText(channels.length), false);
  }

  /**
   * The country's channels, or, while the Channel box has words, the channels of every country
   * whose name has them: someone typing a name expects to find it wherever it is.
   */
  async function loadChannels() {
    const request = ++state.listRequest;
    const wanted = () => request === state.listRequest;
    const q = search.value.trim();
    const country = countrySelect.value;
    const options = { wanted, waiting: (text) => say(text, true) };
    try {
      let channels;
      if (q !== '') {
        const params = new URLSearchParams({ q });
        channels = (await preview(`/channels/search?${params}`, options)).results;
      } else if (country !== '') {
        channels = (await preview(`/countries/${encodeURIComponent(country)}/channels`, options))
          .channels;
      } else {
        channels = [];
      }
      if (!wanted()) return; // a newer choice is on its way
      if (q === '') {
        showChannels(channels, 'Pick a country, or search.', (n) =>
          country === ''
            ? count(n, 'channel', 'channels')
            : `${count(n, 'channel', 'channels')} in ${country}`,
        );
      } else {
        showChannels(
          channels,
          'No preview channel in any country matches.',
          (n) =>
            `${count(n, 'channel', 'channels')} in any country ${n === 1 ? 'matches' : 'match'}.`,
        );
      }
    } catch (error) {
      if (wanted()) say(error.message, true);
    }
  }

  /** Brings the chosen channel's schedule into view: it is the page's last card, far below. */
  function showSchedule() {
    const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    schedule.scrollIntoView({ behavior: still ? 'auto' : 'smooth', block: 'start' });
    $('pg-channel-name').focus({ preventScroll: true });
  }

  /**
   * The `days` the choice asks for, or null while the days box holds no whole number: the box
   * and the request must agree, so a number out of 1–365 is clamped in the box too, and a
   * fraction or nothing is refused in words rather than sent (the API would refuse it).
   */
  function daysParameter() {
    const chosen = document.querySelector('input[name="pg-days"]:checked');
    const value = chosen ? chosen.value : 'today';
    const problem = $('pg-lookback-problem');
    problem.textContent = '';
    lookback.removeAttribute('aria-invalid');
    if (value !== 'lookback') return value;
    const typed = lookback.value.trim();
    const days = Number(typed);
    if (typed === '' || !Number.isInteger(days)) {
      lookback.setAttribute('aria-invalid', 'true');
      problem.className = 'error pg-lookback-problem';
      problem.textContent = 'Days: a whole number from 1 to 365.';
      return null;
    }
    const clamped = Math.min(365, Math.max(1, days));
    if (String(clamped) !== typed) {
      lookback.value = String(clamped);
      if (clamped !== days) {
        problem.className = 'muted pg-lookback-problem';
        problem.textContent = `Days go from 1 to 365: ${typed} became ${clamped}.`;
      }
    }
    return String(clamped);
  }

  const dayFormat = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    weekday: 'long',
    day: 'numeric',
    month: 'long',
  });

  /** "YYYYMMDDHHMMSS +0000" → epoch ms, or null when the text is not in that form. */
  function parseStart(text) {
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}) \+0000$/.exec(text || '');
    return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : null;
  }

  function clock(ms) {
    return ms === null ? '?' : new Date(ms).toISOString().slice(11, 16);
  }

  const ROLE_NAMES = {
    director: ['Director', 'Directors'],
    actor: ['Actor', 'Cast'],
    writer: ['Writer', 'Writers'],
    adapter: ['Adapter', 'Adapters'],
    producer: ['Producer', 'Producers'],
    composer: ['Composer', 'Composers'],
    editor: ['Editor', 'Editors'],
    presenter: ['Presenter', 'Presenters'],
    commentator: ['Commentator', 'Commentators'],
    guest: ['Guest', 'Guests'],
  };

  /** A link for an http(s) URL; any other text (a javascript: URL, say) stays text. */
  function linkOrText(text) {
    let url = null;
    try {
      url = new URL(text);
    } catch {
      // Not a URL: shown as it is.
    }
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return element('span', '', text);
    }
    const link = element('a', '', text);
    link.href = url.href;
    link.rel = 'noopener noreferrer nofollow';
    return link;
  }

  /** "Season 3, episode 5 of 13, part 1 of 2 (S3 E5)", from the parts the guide gives. */
  function episodeText(number) {
    if (number === null) return '';
    const of = (value, total) => (total === null ? String(value) : `${value} of ${total}`);
    const parts = [];
    if (number.season !== null) parts.push(`Season ${of(number.season, number.seasons)}`);
    if (number.episode !== null) parts.push(`episode ${of(number.episode, number.episodes)}`);
    if (number.part !== null) parts.push(`part ${of(number.part, number.parts)}`);
    const text = parts.join(', ');
    const shown = number.onScreen === null ? '' : number.onScreen;
    if (text === '') return shown;
    const sentence = text.charAt(0).toUpperCase() + text.slice(1);
    return shown === '' ? sentence : `${sentence} (${shown})`;
  }

  function lengthText(seconds) {
    if (seconds === null) return '';
    if (seconds < 60) return `${seconds} s`;
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min`;
    const rest = minutes % 60;
    return `${Math.floor(minutes / 60)} h${rest === 0 ? '' : ` ${rest} min`}`;
  }

  /** "PG (MPAA)": a value with the system it is given in, when there is one. */
  function withSystem({ system, value }) {
    return system === '' ? value : `${value} (${system})`;
  }

  /** Fills `panel` with what the detail answer says, as a definition list of what is known. */
  function renderDetails(panel, programme, path) {
    panel.replaceChildren();
    if (programme.subTitle) panel.append(element('p', 'pg-subtitle', programme.subTitle));
    const flags = [];
    if (programme.isNew) flags.push('New');
    if (programme.premiere) flags.push('Premiere');
    if (programme.lastChance) flags.push('Last chance');
    if (programme.previouslyShown !== null) flags.push('Repeat');
    if (flags.length > 0) {
      const line = element('p', 'pg-flags');
      for (const flag of flags) line.append(element('span', 'badge', flag));
      panel.append(line);
    }
    const facts = element('dl', 'facts pg-facts');
    /** A term and its value (text, or nodes); nothing when the value is empty. */
    const fact = (term, value) => {
      if (value === '' || (Array.isArray(value) && value.length === 0)) return;
      const dd = element('dd');
      if (Array.isArray(value)) {
        value.forEach((node, index) => {
          if (index > 0) dd.append(', ');
          dd.append(node);
        });
      } else {
        dd.textContent = value;
      }
      facts.append(element('dt', '', term), dd);
    };
    fact('Episode', episodeText(programme.episodeNumber));
    const byRole = new Map();
    for (const credit of programme.credits) {
      const name = credit.character ? `${credit.name} (${credit.character})` : credit.name;
      byRole.set(credit.role, [...(byRole.get(credit.role) || []), name]);
    }
    for (const [role, names] of byRole) {
      const [one, many] = ROLE_NAMES[role] || [role, role];
      fact(names.length === 1 ? one : many, names.join(', '));
    }
    fact('Date', programme.date);
    fact('Length', lengthText(programme.lengthSeconds));
    fact('Country', programme.productionCountries.join(', '));
    fact('Language', programme.language);
    fact('Original language', programme.originalLanguage);
    fact('Keywords', programme.keywords.join(', '));
    fact('Rating', programme.ratings.map(withSystem).join(', '));
    fact('Stars', programme.starRatings.map(withSystem).join(', '));
    const video = programme.video;
    if (video !== null) {
      const colour = video.colour === null ? null : video.colour ? 'colour' : 'black and white';
      fact('Video', [video.quality, video.aspect, colour].filter((v) => v).join(', '));
    }
    if (programme.audio !== null) fact('Audio', programme.audio.stereo || '');
    fact(
      'Subtitles',
      programme.subtitles.map((s) => [s.type, s.language].filter((v) => v).join(', ')).join('; '),
    );
    const shown = programme.previouslyShown;
    if (shown !== null) {
      const at = parseStart(shown.start);
      const when = at === null ? shown.start : `${dayFormat.format(new Date(at))} ${clock(at)} UTC`;
      fact('Shown before', [when, shown.channel].filter((v) => v).join(', ') || 'yes');
    }
    fact(
      'Other titles',
      programme.titles
        .slice(1)
        .map((t) => (t.lang ? `${t.value} (${t.lang})` : t.value))
        .join('; '),
    );
    fact(
      'Episode ids',
      programme.episodeIds
        .filter((id) => id.system !== 'xmltv_ns' && id.system !== 'onscreen')
        .map(({ system, value }) => (system ? `${system}: ${value}` : value))
        .join(', '),
    );
    fact('Images', programme.images.map(linkOrText));
    fact('Links', programme.urls.map(linkOrText));
    if (facts.childElementCount > 0) panel.append(facts);
    if (panel.childElementCount === 0) {
      panel.append(element('p', 'muted', 'The guide says nothing more about this programme.'));
    }
    const request = element('p', 'muted pg-detail-request', 'GET ');
    request.append(element('code', '', previewApi + path));
    panel.append(request);
  }

  let detailCount = 0;

  /**
   * Fills `panel` with a programme's details from the preview detail route, after `heading`
   * nodes when given; true when they came. `stillWanted` says whether the panel still shows
   * this programme when the answer arrives (the guide's panel is shared).
   */
  async function loadDetails(channelId, programme, panel, heading, stillWanted = () => true) {
    const path = `/channels/${encodeURIComponent(channelId)}/programmes/${encodeURIComponent(programme.id)}`;
    panel.setAttribute('aria-busy', 'true');
    panel.replaceChildren(element('p', 'muted', 'Loading details…'));
    try {
      const body = await preview(path, {
        wanted: stillWanted,
        waiting: (text) => panel.replaceChildren(element('p', 'error', text)),
      });
      if (!stillWanted()) return false;
      renderDetails(panel, body.programme, path);
      if (heading) panel.prepend(...heading);
      return true;
    } catch (error) {
      if (stillWanted()) panel.replaceChildren(element('p', 'error', error.message));
      return false;
    } finally {
      if (stillWanted()) panel.removeAttribute('aria-busy');
    }
  }

  /** Shows or hides a programme's details under its title, loading them the first time. */
  async function toggleDetails(channelId, programme, button, panel) {
    const open = button.getAttribute('aria-expanded') !== 'true';
    button.setAttribute('aria-expanded', String(open));
    panel.hidden = !open;
    if (!open || panel.getAttribute('data-loaded') === 'true') return;
    // Closed while its answer is awaited: no retry after a 429, and a fresh load on reopening.
    const stillOpen = () => !panel.hidden;
    if (await loadDetails(channelId, programme, panel, null, stillOpen)) {
      panel.setAttribute('data-loaded', 'true');
    }
  }

  /** A programme's title as a button that opens its details in a panel below it (keyboard too). */
  function titleWithDetails(channelId, programme, className) {
    const title = element('button', className, programme.title || '(untitled)');
    title.type = 'button';
    const panel = element('div', 'pg-details');
    panel.id = `pg-details-${++detailCount}`;
    panel.hidden = true;
    title.setAttribute('aria-expanded', 'false');
    title.setAttribute('aria-controls', panel.id);
    title.addEventListener('click', () => toggleDetails(channelId, programme, title, panel));
    return { title, panel };
  }

  function renderTimeline(programmes, channelId) {
    const list = $('pg-timeline');
    list.replaceChildren();
    if (programmes.length === 0) {
      list.append(element('li', 'muted', 'No programmes in the preview for this choice.'));
      return;
    }
    const now = Date.now();
    let day = '';
    for (const programme of programmes) {
      const start = parseStart(programme.start);
      const stop = parseStart(programme.stop);
      const heading = start === null ? 'Unknown time' : dayFormat.format(new Date(start));
      if (heading !== day) {
        day = heading;
        list.append(element('li', 'timeline-day', `${heading} (UTC)`));
      }
      const onAir = start !== null && stop !== null && start <= now && now < stop;
      const item = element('li', onAir ? 'timeline-item on-air' : 'timeline-item');
      item.append(element('span', 'timeline-time', `${clock(start)}–${clock(stop)}`));
      const body = element('div', 'timeline-body');
      const { title, panel } = titleWithDetails(channelId, programme, 'link-button timeline-title');
      body.append(title);
      if (onAir) body.append(element('span', 'badge', 'On now'));
      if (programme.category) body.append(element('span', 'chip', programme.category));
      if (programme.desc) body.append(element('p', 'muted', programme.desc));
      body.append(panel);
      item.append(body);
      list.append(item);
    }
  }

  async function loadSchedule() {
    if (state.channel === null) return;
    const request = ++state.scheduleRequest;
    const wanted = () => request === state.scheduleRequest;
    schedule.hidden = false;
    $('pg-channel-name').textContent = `${state.channel.name} (${state.channel.country})`;
    const days = daysParameter();
    if (days === null) {
      // Said next to the box; nothing is asked, so nothing older is shown as its answer.
      $('pg-request').textContent = '';
      setCopyText($('pg-curl'), '');
      $('pg-customer').hidden = true;
      $('pg-json').textContent = '';
      $('pg-timeline').replaceChildren(
        element('li', 'muted', 'Give a whole number of days from 1 to 365.'),
      );
      return;
    }
    const path = `/channels/${state.channel.id}/programmes?days=${encodeURIComponent(days)}`;
    $('pg-request').textContent = previewApi + path;
    $('pg-customer').hidden = false;
    setCopyText($('pg-curl'), `curl -H "Authorization: Bearer YOUR_KEY" "${customerApi}${path}"`);
    const waiting = (text) => {
      $('pg-json').textContent = text;
      $('pg-timeline').replaceChildren(element('li', 'error', text));
    };
    try {
      const body = await preview(path, { wanted, waiting });
      if (!wanted()) return;
      $('pg-json').textContent = JSON.stringify(body, null, 2);
      renderTimeline(body.programmes, body.channelId);
    } catch (error) {
      if (!wanted()) return;
      $('pg-json').textContent = error.message;
      $('pg-timeline').replaceChildren(element('li', 'error', error.message));
    }
  }

  /** One line of now/next: "Now 10:00–11:00 Title", the title opening the details below. */
  function slot(label, channelId, programme) {
    const line = element('div', 'pg-slot');
    line.append(element('span', 'pg-slot-label', label));
    if (programme === null) {
      line.append(element('span', 'muted', 'Nothing in the preview'));
      return line;
    }
    const start = parseStart(programme.start);
    const stop = parseStart(programme.stop);
    // UTC, as the timeline's days and the grid say.
    line.append(element('span', 'timeline-time', `${clock(start)}–${clock(stop)} UTC`));
    const { title, panel } = titleWithDetails(channelId, programme, 'link-button timeline-title');
    line.append(title);
    if (programme.category) line.append(element('span', 'chip', programme.category));
    line.append(panel);
    return line;
  }

  function renderNow(body) {
    const list = $('pg-now');
    list.replaceChildren();
    if (body.channels.length === 0) {
      list.append(element('li', 'muted', 'No preview channels in this country.'));
      return;
    }
    for (const channel of body.channels) {
      const item = element('li', 'pg-now-channel');
      item.setAttribute('data-channel-id', channel.channelId);
      item.append(
        element('h3', 'pg-now-name', channel.name),
        slot('Now', channel.channelId, channel.now),
        slot('Next', channel.channelId, channel.next),
      );
      list.append(item);
    }
  }

  const MINUTE = 60_000;

  /**
   * The guide grid: a row per channel, a column per minute of the window, each programme a
   * button spanning its minutes (cut at the window's edges). Its details open below the grid.
   */
  function renderGuide(body) {
    const container = $('pg-guide');
    const details = $('pg-guide-details');
    container.replaceChildren();
    details.hidden = true;
    details.replaceChildren();
    const from = parseStart(body.from);
    const to = parseStart(body.to);
    const minutes = from === null || to === null ? 0 : Math.round((to - from) / MINUTE);
    if (minutes === 0 || body.channels.length === 0) {
      container.append(element('p', 'muted', 'Nothing in the preview for this window.'));
      return;
    }
    const columns = `repeat(${minutes}, minmax(0, 1fr))`;
    // Wide enough for the shortest cell to show its start time ("18:00", 2.75rem): a programme
    // cut by the window's start may keep only a few minutes. Within bounds, so a one-minute
    // sliver does not make the grid a mile wide (its title and times are in its tooltip).
    let shortest = minutes;
    for (const channel of body.channels) {
      for (const programme of channel.programmes) {
        const startMinute = Math.max(0, Math.round((parseStart(programme.start) - from) / MINUTE));
        const endMinute = Math.min(
          minutes,
          Math.round((parseStart(programme.stop) - from) / MINUTE),
        );
        if (endMinute > startMinute) shortest = Math.min(shortest, endMinute - startMinute);
      }
    }
    const remPerMinute = Math.min(0.5, 2.75 / Math.max(shortest, 1));
    const gridMinWidth = `calc(8.5rem + ${(minutes * remPerMinute).toFixed(2)}rem)`;
    const place = (node, startMinute, endMinute) => {
      node.style.gridColumn = `${startMinute + 1} / ${Math.max(endMinute, startMinute + 1) + 1}`;
    };
    const grid = element('div', 'pg-grid');
    grid.style.minWidth = `max(36rem, ${gridMinWidth})`;
    // The time ruler: the window's start, then each full hour in it.
    const head = element('div', 'pg-grid-row pg-grid-head');
    head.append(element('span', 'pg-grid-name', 'UTC'));
    const ruler = element('div', 'pg-grid-track');
    ruler.style.gridTemplateColumns = columns;
    const marks = [from];
    for (let hour = Math.floor(from / 3_600_000 + 1) * 3_600_000; hour < to; hour += 3_600_000) {
      marks.push(hour);
    }
    marks.forEach((mark, index) => {
      const label = element('span', 'pg-grid-hour', clock(mark));
      const end = index + 1 < marks.length ? marks[index + 1] : to;
      place(label, Math.round((mark - from) / MINUTE), Math.round((end - from) / MINUTE));
      ruler.append(label);
    });
    head.append(ruler);
    grid.append(head);

    let selected = null;
    for (const channel of body.channels) {
      const row = element('div', 'pg-grid-row');
      row.setAttribute('data-channel-id', channel.channelId);
      row.append(element('span', 'pg-grid-name', channel.name));
      const track = element('div', 'pg-grid-track');
      track.style.gridTemplateColumns = columns;
      if (channel.programmes.length === 0) {
        const empty = element('span', 'muted pg-grid-empty', 'Nothing in the preview');
        place(empty, 0, minutes);
        track.append(empty);
      }
      for (const programme of channel.programmes) {
        const start = parseStart(programme.start);
        const stop = parseStart(programme.stop);
        const startMinute = Math.max(0, Math.round((start - from) / MINUTE));
        const endMinute = Math.min(minutes, Math.round((stop - from) / MINUTE));
        // Less than half a minute of it in the window (one ending just after the window's
        // start): no column of its own, and one would push the next programme to a row below.
        if (endMinute <= startMinute) continue;
        const button = element('button', 'pg-grid-programme');
        button.type = 'button';
        button.append(
          element('span', 'pg-grid-time', clock(start)),
          element('span', 'pg-grid-title', programme.title || '(untitled)'),
        );
        button.title = `${clock(start)}–${clock(stop)} UTC ${programme.title || '(untitled)'}`;
        // A narrow cell hides its title (see onair.css); its name still says it in full, with
        // its channel, so a screen reader moving along the grid knows which row it is in.
        button.setAttribute('aria-label', `${channel.name}: ${button.title}`);
        if (start < from) button.classList.add('pg-grid-cut');
        button.setAttribute('aria-expanded', 'false');
        button.setAttribute('aria-controls', details.id);
        place(button, startMinute, endMinute);
        button.addEventListener('click', async () => {
          if (selected !== null) selected.setAttribute('aria-expanded', 'false');
          if (selected === button) {
            selected = null;
            details.hidden = true;
            return;
          }
          selected = button;
          button.setAttribute('aria-expanded', 'true');
          details.hidden = false;
          const heading = element('p', 'pg-guide-heading');
          heading.append(
            element('strong', '', programme.title || '(untitled)'),
            ` ${clock(start)}–${clock(stop)} UTC, ${channel.name}`,
          );
          if (programme.desc) heading.append(element('span', 'muted', ` ${programme.desc}`));
          await loadDetails(
            channel.channelId,
            programme,
            details,
            [heading],
            () => selected === button,
          );
        });
        track.append(button);
      }
      row.append(track);
      grid.append(row);
    }
    container.append(grid);
  }

  /** Now/next or the guide of the chosen country's preview channels: one request for all. */
  async function loadWhatsOn() {
    const country = countrySelect.value;
    whatsOn.hidden = country === '';
    if (country === '') return;
    const request = ++state.onRequest;
    const showGuide = state.onView === 'guide';
    const params = new URLSearchParams({ country });
    if (showGuide) params.set('hours', '3');
    const path = `/${showGuide ? 'guide' : 'now'}?${params}`;
    $('pg-on-heading').textContent = `What's on (${country})`;
    $('pg-on-request').textContent = previewApi + path;
    const target = showGuide ? $('pg-guide') : $('pg-now');
    target.setAttribute('aria-busy', 'true');
    const wanted = () => request === state.onRequest;
    const waiting = (text) =>
      target.replaceChildren(element(showGuide ? 'p' : 'li', 'error', text));
    try {
      const body = await preview(path, { wanted, waiting });
      if (request !== state.onRequest) return;
      if (showGuide) renderGuide(body);
      else renderNow(body);
    } catch (error) {
      if (request !== state.onRequest) return;
      target.replaceChildren(element(showGuide ? 'p' : 'li', 'error', error.message));
    } finally {
      target.removeAttribute('aria-busy');
    }
  }

  function selectOnView(view) {
    state.onView = view;
    const guide = view === 'guide';
    $('pg-tab-now').setAttribute('aria-selected', String(!guide));
    $('pg-tab-guide').setAttribute('aria-selected', String(guide));
    $('pg-tab-now').className = guide ? 'secondary' : '';
    $('pg-tab-guide').className = guide ? '' : 'secondary';
    $('pg-now-panel').hidden = guide;
    $('pg-guide-panel').hidden = !guide;
    loadWhatsOn();
  }

  function selectTab(showJson) {
    $('pg-tab-timeline').setAttribute('aria-selected', String(!showJson));
    $('pg-tab-json').setAttribute('aria-selected', String(showJson));
    $('pg-tab-timeline').className = showJson ? 'secondary' : '';
    $('pg-tab-json').className = showJson ? '' : 'secondary';
    $('pg-timeline-panel').hidden = showJson;
    $('pg-json-panel').hidden = !showJson;
  }

  const FIND_PAGE = 20;

  /**
   * "When is it on?": the programme search over the preview channels, from now on, a page at a
   * time: `cursor` (the answer's `next`) asks for the page after the ones shown.
   */
  async function findProgrammes(cursor) {
    const request = ++state.findRequest;
    const wanted = () => request === state.findRequest;
    const q = cursor ? state.findQuery : $('pg-find-q').value.trim();
    state.findQuery = q;
    const params = new URLSearchParams({ q, limit: String(FIND_PAGE) });
    if (cursor) params.set('cursor', cursor);
    const path = `/programmes/search?${params}`;
    $('pg-find-request').textContent = `${previewApi}${path}`;
    $('pg-find-request-line').hidden = false;
    const list = $('pg-find-results');
    const more = $('pg-find-more');
    const note = $('pg-find-note');
    more.hidden = true;
    if (!cursor) {
      list.replaceChildren();
      note.textContent = '';
      state.findDay = '';
      state.findShown = 0;
    }
    const waiting = (text) => {
      note.className = 'error';
      note.textContent = text;
    };
    try {
      const { results, next } = await preview(path, { wanted, waiting });
      if (!wanted()) return;
      if (results.length === 0 && !cursor) {
        note.className = 'muted';
        note.textContent = q === '' ? 'Type some words.' : 'No programme matches.';
        return;
      }
      for (const { channel, programme } of results) {
        const start = parseStart(programme.start);
        // Days as the timeline heads them, saying the times are UTC.
        const day = start === null ? 'Unknown time' : `${dayFormat.format(new Date(start))} (UTC)`;
        if (day !== state.findDay) {
          state.findDay = day;
          list.append(element('li', 'timeline-day', day));
        }
        const item = element('li', 'timeline-item pg-found');
        item.append(element('span', 'timeline-time', clock(start)));
        const body = element('div', 'timeline-body');
        const { title, panel } = titleWithDetails(
          channel.channelId,
          programme,
          'link-button timeline-title',
        );
        body.append(title, element('span', 'chip', channel.name), panel);
        item.append(body);
        list.append(item);
      }
      state.findShown += results.length;
      state.findNext = next;
      note.className = 'muted';
      note.textContent =
        next === null
          ? `${count(state.findShown, 'programme', 'programmes')} found.`
          : `The first ${count(state.findShown, 'programme', 'programmes')} found; there are more.`;
      more.hidden = next === null;
    } catch (error) {
      if (!wanted()) return;
      note.className = 'error';
      note.textContent = error.message;
      // The same page can be asked for again.
      if (cursor) more.hidden = false;
    }
  }
  $('pg-find-form').addEventListener('submit', (event) => {
    event.preventDefault();
    findProgrammes(null);
  });
  $('pg-find-more').addEventListener('click', () => findProgrammes(state.findNext));

  let typing = null;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(loadChannels, 250);
  });
  countrySelect.addEventListener('change', () => {
    loadChannels();
    loadWhatsOn();
  });
  for (const radio of document.querySelectorAll('input[name="pg-days"]')) {
    radio.addEventListener('change', loadSchedule);
  }
  lookback.addEventListener('change', () => {
    document.querySelector('input[name="pg-days"][value="lookback"]').checked = true;
    loadSchedule();
  });
  $('pg-tab-timeline').addEventListener('click', () => selectTab(false));
  $('pg-tab-json').addEventListener('click', () => selectTab(true));
  $('pg-tab-now').addEventListener('click', () => selectOnView('now'));
  $('pg-tab-guide').addEventListener('click', () => selectOnView('guide'));

  /**
   * The tab lists as the ARIA pattern has them: one Tab stop per list (the selected tab), the
   * arrow keys, Home and End move to another tab and select it.
   */
  for (const list of document.querySelectorAll(
    '#pg-on [role=tablist], #pg-schedule [role=tablist]',
  )) {
    const tabs = [...list.querySelectorAll('[role=tab]')];
    const roving = () => {
      for (const tab of tabs) {
        tab.tabIndex = tab.getAttribute('aria-selected') === 'true' ? 0 : -1;
      }
    };
    roving();
    list.addEventListener('click', roving);
    list.addEventListener('keydown', (event) => {
      const at = tabs.indexOf(document.activeElement);
      if (at < 0) return;
      const to = {
        ArrowRight: (at + 1) % tabs.length,
        ArrowLeft: (at - 1 + tabs.length) % tabs.length,
        Home: 0,
        End: tabs.length - 1,
      }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      tabs[to].focus();
      tabs[to].click();
    });
  }

  // The first request of all: a 429 here is waited out too, the select saying so meanwhile.
  preview('/countries', {
    waiting: (text) => {
      countrySelect.firstElementChild.textContent = 'Waiting…';
      say(text, true);
    },
  })
    .then(({ countries }) => {
      countrySelect.replaceChildren();
      const any = element('option', '', 'Every country');
      any.value = '';
      countrySelect.append(any);
      for (const { country, channelCount } of countries) {
        const option = element('option', '', `${country} (${channelCount})`);
        option.value = country;
        countrySelect.append(option);
      }
      countrySelect.disabled = false;
      if (countries.length === 0) {
        say('This deployment has no preview channels yet.', false);
        return;
      }
      say('', false);
      countrySelect.value = countries[0].country;
      loadChannels();
      loadWhatsOn();
    })
    .catch((error) => say(error.message, true));
})();
