import { html, type SafeHtml } from '../html.js';
import { page } from './layout.js';

/** What the playground page needs to know. */
export interface PlaygroundView {
  /** Base of the keyless preview API the page calls. */
  previewApi: string;
  /** This deployment's customer API, shown as the curl line to use with a key. */
  customerApi: string;
  /** Requests per client address per minute. */
  limitPerMinute: number;
}

/**
 * The playground: pick a country, see what is on its preview channels now and next and as a
 * three-hour guide grid, find a channel, read its schedule as a timeline and as the raw JSON,
 * open a programme's details. Everything comes from the keyless preview API
 * (public/playground.js); the page itself is static. The controls (#playground) and the
 * programme search (#pg-find) are sent hidden and shown by playground.js: without it they could
 * do nothing, so a browser without JavaScript shows only the note that says so.
 */
export function playgroundPage(view: PlaygroundView): SafeHtml {
  return page(
    { title: 'Playground', scripts: ['/assets/account.js', '/assets/playground.js'] },
    html`<section class="card">
        <h1>Playground</h1>
        <p class="warning" role="note">
          <strong>Preview data.</strong> No key needed: a few channels, with today's and tomorrow's
          programmes only (UTC), ${view.limitPerMinute} requests a minute. The
          <a href="/docs">customer API</a> serves every channel and its whole schedule.
        </p>
        <noscript><p class="error">The playground needs JavaScript.</p></noscript>
        <div
          id="playground"
          class="playground"
          hidden
          data-preview-api="${view.previewApi}"
          data-customer-api="${view.customerApi}"
        >
          <div class="pg-pickers">
            <div class="stack">
              <label for="pg-country">Country</label>
              <select id="pg-country" disabled>
                <option value="">Loading…</option>
              </select>
            </div>
            <div class="stack">
              <label for="pg-search">Channel</label>
              <input
                id="pg-search"
                type="search"
                placeholder="A channel's name, in any country"
                autocomplete="off"
                maxlength="200"
                aria-describedby="pg-search-hint"
              />
              <p id="pg-search-hint" class="muted pg-hint">
                Searches the preview channels of every country; when empty, the country's are
                listed.
              </p>
            </div>
          </div>
          <ul id="pg-channels" class="pg-channels" aria-label="Channels"></ul>
          <p id="pg-status" class="muted" role="status" aria-live="polite"></p>
        </div>
      </section>
      <section id="pg-on" class="card" hidden>
        <h2 id="pg-on-heading">What's on</h2>
        <p class="muted">
          Every preview channel of the country in one request: what is on now and next, or the next
          three hours as a grid. Press a programme for its details.
        </p>
        <div class="pg-tabs" role="tablist" aria-label="What's on">
          <button
            type="button"
            role="tab"
            id="pg-tab-now"
            aria-selected="true"
            aria-controls="pg-now-panel"
          >
            Now / next
          </button>
          <button
            type="button"
            role="tab"
            id="pg-tab-guide"
            aria-selected="false"
            aria-controls="pg-guide-panel"
            class="secondary"
          >
            Guide
          </button>
        </div>
        <div id="pg-now-panel" role="tabpanel" aria-labelledby="pg-tab-now">
          <ul id="pg-now" class="pg-now"></ul>
        </div>
        <div id="pg-guide-panel" role="tabpanel" aria-labelledby="pg-tab-guide" hidden>
          <div id="pg-guide" class="pg-guide"></div>
          <div id="pg-guide-details" class="pg-details" hidden></div>
        </div>
        <p class="muted pg-on-request">GET <code id="pg-on-request"></code></p>
      </section>
      <section id="pg-find" class="card" hidden>
        <h2>When is it on?</h2>
        <p class="muted">
          Search programmes by their words (title, sub-title, description, categories, credits)
          across the preview channels; the last word may be the start of one.
        </p>
        <form id="pg-find-form" class="pg-find-form" role="search">
          <div class="stack">
            <label for="pg-find-q">Programme</label>
            <input
              id="pg-find-q"
              type="search"
              placeholder="For example: news, garden res"
              autocomplete="off"
              maxlength="200"
            />
          </div>
          <button type="submit">Search</button>
        </form>
        <p id="pg-find-note" class="muted" role="status" aria-live="polite"></p>
        <ol id="pg-find-results" class="timeline"></ol>
        <button type="button" id="pg-find-more" class="secondary pg-find-more" hidden>
          More results
        </button>
        <p id="pg-find-request-line" class="muted pg-request-line" hidden>
          GET <code id="pg-find-request"></code>
        </p>
      </section>
      <section id="pg-schedule" class="card" hidden>
        <h2 id="pg-channel-name" tabindex="-1">Schedule</h2>
        <fieldset class="pg-days">
          <legend>Programmes</legend>
          <label><input type="radio" name="pg-days" value="today" checked /> Today</label>
          <label><input type="radio" name="pg-days" value="tomorrow" /> Tomorrow</label>
          <label>
            <input type="radio" name="pg-days" value="lookback" /> Last
            <input
              id="pg-lookback"
              type="number"
              min="1"
              max="365"
              step="1"
              value="7"
              inputmode="numeric"
              aria-label="Number of days"
              aria-describedby="pg-lookback-problem"
            />
            days and all upcoming
          </label>
          <label><input type="radio" name="pg-days" value="all" /> All</label>
          <p id="pg-lookback-problem" class="pg-lookback-problem" aria-live="polite"></p>
        </fieldset>
        <div class="pg-tabs" role="tablist" aria-label="Schedule as">
          <button
            type="button"
            role="tab"
            id="pg-tab-timeline"
            aria-selected="true"
            aria-controls="pg-timeline-panel"
          >
            Timeline
          </button>
          <button
            type="button"
            role="tab"
            id="pg-tab-json"
            aria-selected="false"
            aria-controls="pg-json-panel"
            class="secondary"
          >
            JSON
          </button>
        </div>
        <div id="pg-timeline-panel" role="tabpanel" aria-labelledby="pg-tab-timeline">
          <p class="muted">
            Press a programme's title for everything its guide says: episode, credits, ratings,
            images and more (the programme detail route).
          </p>
          <ol id="pg-timeline" class="timeline"></ol>
        </div>
        <div id="pg-json-panel" role="tabpanel" aria-labelledby="pg-tab-json" hidden>
          <p class="muted pg-request-line">GET <code id="pg-request"></code></p>
          <pre id="pg-json"></pre>
        </div>
        <div id="pg-customer">
          <p class="muted">With a key, the customer API answers the same request:</p>
          <div class="command">
            <pre><code id="pg-curl"></code></pre>
            <button type="button" class="secondary small" data-copy-target="pg-curl">Copy</button>
          </div>
        </div>
      </section>`,
  );
}
