// The playground page: country → channel → schedule, all from the keyless preview API named
// by #playground (never the customer API). Text goes into the page with textContent only.
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

  function renderTimeline(programmes) {
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
      const title = element('strong', '', programme.title || '(untitled)');
      body.append(title);
      if (onAir) body.append(element('span', 'badge', 'On now'));
      if (programme.category) body.append(element('span', 'chip', programme.category));
      if (programme.desc) body.append(element('p', 'muted', programme.desc));
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
      renderTimeline(body.programmes);
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
