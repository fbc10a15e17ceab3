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
