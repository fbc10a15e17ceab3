import { DEFAULT_RATE_LIMIT } from '../../domain/rate-window.js';
import { html, type SafeHtml } from '../html.js';
import { page } from './layout.js';

/** What the reference page shows: this deployment's address, and where the document is. */
export interface DocsView {
  /** PUBLIC_URL, without a trailing slash. */
  baseUrl: string;
  openApiPath: string;
  /** Where the Swagger UI files are served. */
  rendererAssets: string;
}

/** A shell command with a button that copies it (public/account.js does the copying). */
function copyable(id: string, command: string): SafeHtml {
  return html`<div class="command">
    <pre><code id="${id}">${command}</code></pre>
    <button type="button" class="secondary small" data-copy-target="${id}">Copy</button>
  </div>`;
}

/**
 * The API reference: a short getting-started with this deployment's own base URL, then the
 * OpenAPI document rendered by Swagger UI (served by this server, run from a script file).
 */
export function docsPage(view: DocsView): SafeHtml {
  const api = `${view.baseUrl}/api/v1`;
  return page(
    {
      title: 'API reference',
      wide: true,
      styles: [`${view.rendererAssets}/swagger-ui.css`],
      scripts: [
        '/assets/account.js',
        `${view.rendererAssets}/swagger-ui-bundle.js`,
        '/assets/docs.js',
      ],
    },
    html`<section class="card getting-started">
        <h1>Getting started</h1>
        <p class="lead">
          Countries, channels and TV schedules as JSON, at <code>${api}</code>. Try it without a key
          in the <a href="/playground">playground</a> (preview data).
        </p>
        <h2>1. Get a key</h2>
        <p>
          <a href="/signin">Sign in with your e-mail address</a>: a new address gets a 7-day trial.
          On your <a href="/account">account page</a>, create a key; it is shown once, so store it.
        </p>
        <h2>2. First call</h2>
        <p>Send the key as <code>Authorization: Bearer …</code> (or <code>X-API-Key: …</code>):</p>
        ${copyable('curl-countries', `curl -H "Authorization: Bearer YOUR_KEY" ${api}/countries`)}
        <p>Then a country's channels, a search, and today's schedule of a channel:</p>
        ${copyable('curl-channels', `curl -H "Authorization: Bearer YOUR_KEY" ${api}/countries/UK/channels`)}
        ${copyable('curl-search', `curl -H "X-API-Key: YOUR_KEY" "${api}/channels/search?q=news"`)}
        ${copyable(
          'curl-programmes',
          `curl -H "Authorization: Bearer YOUR_KEY" "${api}/channels/CHANNEL_ID/programmes?days=today"`,
        )}
        <h2>3. Rate limit</h2>
        <p>
          ${DEFAULT_RATE_LIMIT} requests per second per account, all its keys together. Past that
          the answer is <code>429</code> with <code>Retry-After</code> (seconds); the
          <code>RateLimit</code> header shows what is left:
        </p>
        ${copyable('curl-headers', `curl -si -H "Authorization: Bearer YOUR_KEY" ${api}/countries`)}
        <h2>4. Errors</h2>
        <p>
          Every error is JSON with a stable code, e.g.
          <code>{"error": "Missing or invalid API key", "code": "UNAUTHORIZED"}</code>; the codes of
          each route are listed below. Answers carry an <code>ETag</code>: send it back as
          <code>If-None-Match</code> to get <code>304</code> while nothing changed.
        </p>
        <h2 id="media-servers">5. Use with Plex / Jellyfin / Kodi / Tvheadend</h2>
        <p>
          Media servers take their guide as an XMLTV address, and cannot send a key. On your
          <a href="/account#feeds">account page</a>, make a <strong>guide feed</strong>: pick your
          channels (or a whole country) and how many days back and ahead. Its address is shown once,
          like a key, and holds its own secret; a new address ends the old one at once.
        </p>
        ${copyable('feed-url', `${view.baseUrl}/feeds/YOUR_FEED_TOKEN/guide.xml`)}
        <p>
          The same guide as a gzip file ends in <code>guide.xml.gz</code>. A feed may be fetched 60
          times an hour, apart from the API's budget; every server below fetches far less.
        </p>
        <ul>
          <li>
            <strong>Plex</strong>: Settings → Live TV &amp; DVR → set up your tuner; at the guide
            step choose “Have an XMLTV guide on your server? Click here to use that instead” and
            paste the address as the XMLTV guide.
          </li>
          <li>
            <strong>Jellyfin</strong> (and <strong>Emby</strong>): Dashboard → Live TV → TV Guide
            Data Providers → add → XMLTV, and paste the address as the file or URL.
          </li>
          <li>
            <strong>Kodi</strong>: the PVR IPTV Simple Client add-on → Configure → EPG → location
            “Remote path (Internet address)”, and paste the address as the XMLTV URL.
          </li>
          <li>
            <strong>Tvheadend</strong>: Configuration → Channel / EPG → EPG Grabber Modules → enable
            “Internal: XMLTV: tv_grab_url” and give the address as its extra argument.
          </li>
          <li>
            <strong>Threadfin</strong>, <strong>xTeVe</strong>, <strong>Dispatcharr</strong>: add
            the address as an XMLTV source.
          </li>
        </ul>
        <h2 id="webhooks">6. Webhooks: changes pushed to you</h2>
        <p>
          Instead of polling <code>/api/v1/changes</code>, make a <strong>webhook</strong> on your
          <a href="/account#webhooks">account page</a>: an https URL and the channels (or country)
          you follow. After each guide update Onair POSTs the change records, in order, at most
          1,000 a request, as <code>{"webhookId": "…", "changes": [ … ]}</code>, records exactly as
          <code>/api/v1/changes</code> gives them. Any 2xx answer counts as delivered; anything else
          or no answer within 10 s is retried (after 30 s, then twice as long each time) for 24
          hours, then the webhook is disabled and the account page says why. A batch may come twice:
          skip the records whose <code>seq</code> you have.
        </p>
        <p>
          Each request is signed with the webhook's secret (shown once, when you make it):
          <code
            >Onair-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256 of "&lt;t&gt;.&lt;raw
            body&gt;"&gt;</code
          >. Check it on the raw body before parsing it, and refuse an old <code>t</code>; the
          TypeScript client does both:
        </p>
        <pre><code>import { verifyWebhook } from '@onair/client';
const payload = await verifyWebhook(secret, request.headers['onair-signature'], rawBody);</code></pre>
        <p class="muted">
          Machine-readable: <a href="${view.openApiPath}">OpenAPI 3.1 document</a>. A typed
          TypeScript client is in <code>clients/typescript</code> of the Onair sources.
        </p>
      </section>
      <section class="reference" aria-label="API reference">
        <div id="reference" data-openapi-url="${view.openApiPath}">
          <noscript>
            <p class="warning">
              The reference below needs JavaScript. The same content is in the
              <a href="${view.openApiPath}">OpenAPI document</a>.
            </p>
          </noscript>
        </div>
      </section>`,
  );
}
