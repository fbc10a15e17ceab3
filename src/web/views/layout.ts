import { html, type HtmlValue, type SafeHtml } from '../html.js';

export interface PageOptions {
  title: string;
  /** Shows "Account" and "Sign out" in the header. */
  signedIn?: boolean;
  /** Scripts from /assets to load (CSP allows only same-origin scripts). */
  scripts?: string[];
  /** Stylesheets besides onair.css, from this site. */
  styles?: string[];
  /** Uses the full width of the window (the API reference). */
  wide?: boolean;
}

/** The frame of every page: header, main content, footer; no external resources. */
export function page(options: PageOptions, content: HtmlValue): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${options.title} · Onair</title>
        <link rel="stylesheet" href="/assets/onair.css" />
        ${(options.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}" />`)}
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        ${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <header class="site-header">
          <a class="brand" href="/"><span class="brand-mark" aria-hidden="true">◉</span> Onair</a>
          <nav>
            <a href="/docs">Docs</a>
            <a href="/playground">Playground</a>
            ${
              options.signedIn
                ? html`<a href="/account">Account</a>
                    <form method="post" action="/signout" class="inline">
                      <button class="link-button" type="submit">Sign out</button>
                    </form>`
                : html`<a href="/signin">Sign in</a>`
            }
          </nav>
        </header>
        <main${options.wide ? html` class="wide"` : ''}>${content}</main>
        <footer class="site-footer">Onair · TV schedules as a JSON API</footer>
      </body>
    </html> `;
}
