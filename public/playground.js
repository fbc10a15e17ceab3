// The playground page: country → channel → schedule → a programme's details, all from the
// keyless preview API named by #playground (never the customer API). Guide text goes into the
// page with textContent only, and only http(s) URLs become links.
(() => {
  const root = document.getElementById('playground');
  if (root === null) return;
  const previewApi = root.getAttribute('data-preview-api') || '/playground/api';
  const customerApi = root.getAttribute('data-customer-api') || '';
  const $ = (id) => document.getElementById(id);
  const countrySelect = $('pg-country');
  const search = $('pg-search');
  const channelList = $('pg-channels');
  const status = $('pg-status');
  const schedule = $('pg-schedule');
  const lookback = $('pg-lookback');
  const state = { channel: null, listRequest: 0, scheduleRequest: 0 };

  /** GET a preview route; resolves to the parsed body, or throws an Error with the API's message. */
  async function preview(path) {
    const response = await fetch(previewApi + path, { headers: { accept: 'application/json' } });
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const retry = response.headers.get('retry-after');
      const message = (body && body.error) || `Request failed (${response.status})`;
      throw new Error(retry ? `${message} (retry in ${retry} s)` : message);
    }
    return body;
  }

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

  function showChannels(channels, emptyText) {
    channelList.replaceChildren();
    for (const channel of channels) {
      const id = channel.id || channel.channelId;
      const item = element('li');
      const button = element('button', 'secondary', channel.name);
      button.type = 'button';
      button.setAttribute('data-channel-id', id);
      if (state.channel && state.channel.id === id) button.setAttribute('aria-pressed', 'true');
      button.addEventListener('click', () => {
        state.channel = { id, name: channel.name, country: channel.country };
        for (const other of channelList.querySelectorAll('button')) {
          other.setAttribute('aria-pressed', other === button ? 'true' : 'false');
        }
        loadSchedule();
      });
      item.append(button, element('span', 'muted', ` ${channel.country}`));
      channelList.append(item);
    }
    say(channels.length === 0 ? emptyText : `${channels.length} channel(s)`, false);
  }

  async function loadChannels() {
    const request = ++state.listRequest;
    const q = search.value.trim();
    const country = countrySelect.value;
    try {
      let channels;
      if (q !== '') {
        const params = new URLSearchParams({ q });
        if (country !== '') params.set('country', country);
        channels = (await preview(`/channels/search?${params}`)).results;
      } else if (country !== '') {
        channels = (await preview(`/countries/${encodeURIComponent(country)}/channels`)).channels;
      } else {
        channels = [];
      }
      if (request !== state.listRequest) return; // a newer choice is on its way
      showChannels(
        channels,
        q === '' ? 'Pick a country, or search.' : 'No preview channel matches.',
      );
    } catch (error) {
      if (request === state.listRequest) say(error.message, true);
    }
  }

  function daysParameter() {
    const chosen = document.querySelector('input[name="pg-days"]:checked');
    const value = chosen ? chosen.value : 'today';
    if (value === 'lookback')
      return String(Math.min(365, Math.max(1, Number(lookback.value) || 7)));
    return value;
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

  /** Shows or hides a programme's details under its title, loading them the first time. */
  async function toggleDetails(channelId, programme, button, panel) {
    const open = button.getAttribute('aria-expanded') !== 'true';
    button.setAttribute('aria-expanded', String(open));
    panel.hidden = !open;
    if (!open || panel.getAttribute('data-loaded') === 'true') return;
    const path = `/channels/${encodeURIComponent(channelId)}/programmes/${encodeURIComponent(programme.id)}`;
    panel.setAttribute('aria-busy', 'true');
    panel.replaceChildren(element('p', 'muted', 'Loading details…'));
    try {
      const body = await preview(path);
      renderDetails(panel, body.programme, path);
      panel.setAttribute('data-loaded', 'true');
    } catch (error) {
      panel.replaceChildren(element('p', 'error', error.message));
    } finally {
      panel.removeAttribute('aria-busy');
    }
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
      // The title is a button that opens the programme's details below it (keyboard too).
      const title = element(
        'button',
        'link-button timeline-title',
        programme.title || '(untitled)',
      );
      title.type = 'button';
      const panel = element('div', 'pg-details');
      panel.id = `pg-details-${++detailCount}`;
      panel.hidden = true;
      title.setAttribute('aria-expanded', 'false');
      title.setAttribute('aria-controls', panel.id);
      title.addEventListener('click', () => toggleDetails(channelId, programme, title, panel));
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
    const path = `/channels/${state.channel.id}/programmes?days=${encodeURIComponent(daysParameter())}`;
    schedule.hidden = false;
    $('pg-channel-name').textContent = `${state.channel.name} (${state.channel.country})`;
    $('pg-request').textContent = previewApi + path;
    $('pg-curl').textContent = `curl -H "Authorization: Bearer YOUR_KEY" "${customerApi}${path}"`;
    try {
      const body = await preview(path);
      if (request !== state.scheduleRequest) return;
      $('pg-json').textContent = JSON.stringify(body, null, 2);
      renderTimeline(body.programmes, body.channelId);
    } catch (error) {
      if (request !== state.scheduleRequest) return;
      $('pg-json').textContent = error.message;
      $('pg-timeline').replaceChildren(element('li', 'error', error.message));
    }
  }

  function selectTab(showJson) {
    $('pg-tab-timeline').setAttribute('aria-selected', String(!showJson));
    $('pg-tab-json').setAttribute('aria-selected', String(showJson));
    $('pg-tab-timeline').className = showJson ? 'secondary' : '';
    $('pg-tab-json').className = showJson ? '' : 'secondary';
    $('pg-timeline-panel').hidden = showJson;
    $('pg-json-panel').hidden = !showJson;
  }

  let typing = null;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(loadChannels, 250);
  });
  countrySelect.addEventListener('change', loadChannels);
  for (const radio of document.querySelectorAll('input[name="pg-days"]')) {
    radio.addEventListener('change', loadSchedule);
  }
  lookback.addEventListener('change', () => {
    document.querySelector('input[name="pg-days"][value="lookback"]').checked = true;
    loadSchedule();
  });
  $('pg-tab-timeline').addEventListener('click', () => selectTab(false));
  $('pg-tab-json').addEventListener('click', () => selectTab(true));

  preview('/countries')
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
      countrySelect.value = countries[0].country;
      loadChannels();
    })
    .catch((error) => say(error.message, true));
})();
