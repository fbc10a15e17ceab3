import { html, type SafeHtml } from '../html.js';
import { page } from './layout.js';

/** The home page: what Onair is and where to start. */
export function homePage(apiBase: string, signedIn: boolean): SafeHtml {
  return page(
    { title: 'TV schedules as an API', signedIn },
    html`<section class="hero">
        <h1>TV schedules, as a JSON API</h1>
        <p class="lead">
          Countries, channels and programme guides, exact and fast, behind an API key.
        </p>
        <p>
          ${
            signedIn
              ? html`<a class="button" href="/account">Go to your account</a>`
              : html`<a class="button" href="/signin">Sign in or start a 7-day trial</a>`
          }
        </p>
      </section>
      <section class="card">
        <h2>Call the API</h2>
        <pre><code>curl -H "Authorization: Bearer YOUR_KEY" ${apiBase}/countries</code></pre>
        <p>
          Read the <a href="/docs">API reference</a>, or try the
          <a href="/playground">playground</a> with preview data, no key needed.
        </p>
      </section>`,
  );
}

/** The sign-in form; `error` explains a refused address, `notice` a finished action. */
export function signInPage(
  options: { email?: string; error?: string; notice?: string } = {},
): SafeHtml {
  return page(
    { title: 'Sign in' },
    html`<section class="card narrow">
      <h1>Sign in</h1>
      ${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
      <p>
        Enter your e-mail address and we will send you a link to sign in. No password needed. A new
        address gets a 7-day trial from the first sign-in.
      </p>
      <form method="post" action="/signin" class="stack">
        <label for="email">E-mail address</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="email"
          required
          maxlength="254"
          value="${options.email ?? ''}"
          ${options.error ? html` aria-invalid="true" aria-describedby="email-error"` : ''}
        />
        ${options.error ? html`<p class="error" id="email-error">${options.error}</p>` : ''}
        <button type="submit">E-mail me a sign-in link</button>
      </form>
    </section>`,
  );
}

/**
 * The same answer for every address, known or not. The address is the one just typed, when the
 * browser kept it (a cookie of its own); without it the page speaks of "that address".
 */
export function linkSentPage(email: string | null): SafeHtml {
  return page(
    { title: 'Check your inbox' },
    html`<section class="card narrow">
      <h1>Check your inbox</h1>
      <p>
        If ${email === null ? 'that address' : html`<strong>${email}</strong>`} can receive mail, a
        sign-in link is on its way. It works once, within 15 minutes.
      </p>
      <p class="muted">
        Nothing arrived? Look in the spam folder, or <a href="/signin">ask for a new link</a>.
      </p>
    </section>`,
  );
}

export function tooManyLinksPage(retryAfterMinutes: number): SafeHtml {
  return page(
    { title: 'Too many sign-in requests' },
    html`<section class="card narrow">
      <h1>Too many sign-in requests</h1>
      <p>
        Please wait ${retryAfterMinutes} minute${retryAfterMinutes === 1 ? '' : 's'} before asking
        for another link.
      </p>
    </section>`,
  );
}

/**
 * Opening the e-mailed link shows this page; only its button (a POST) uses the link up, so
 * mail scanners that fetch links cannot spend it. The button names the address, apart from the
 * header's "Sign in" link, which goes elsewhere.
 */
export function confirmPage(email: string, token: string): SafeHtml {
  return page(
    { title: 'Confirm sign-in' },
    html`<section class="card narrow">
      <h1>Sign in to Onair</h1>
      <p>This link signs in <strong>${email}</strong>.</p>
      <form method="post" action="/signin/confirm" class="stack">
        <input type="hidden" name="token" value="${token}" />
        <button type="submit">Sign in as ${email}</button>
      </form>
    </section>`,
  );
}

export function linkUnusablePage(): SafeHtml {
  return page(
    { title: 'Link expired' },
    html`<section class="card narrow">
      <h1>This link cannot be used</h1>
      <p>
        Sign-in links work once, within 15 minutes. This one has expired or has been used already.
      </p>
      <p><a class="button" href="/signin">Get a new link</a></p>
    </section>`,
  );
}

/** Where a message page leads back to. */
export interface BackLink {
  href: string;
  label: string;
}

/**
 * Any other refusal of a page request, in words. Signed in, it leads back to the account (or
 * `back`, the list the item belonged to), not to the start: that is where the user came from.
 */
export function messagePage(
  title: string,
  message: string,
  signedIn = false,
  back: BackLink = signedIn
    ? { href: '/account', label: 'Back to your account' }
    : { href: '/', label: 'Back to the start' },
): SafeHtml {
  return page(
    { title, signedIn },
    html`<section class="card narrow">
      <h1>${title}</h1>
      <p>${message}</p>
      <p><a href="${back.href}">${back.label}</a></p>
    </section>`,
  );
}

/**
 * `GET /signout` (typed, or a bookmark): signing out changes state, so a GET only shows the
 * button; the POST behind it is checked like every other.
 */
export function signOutPage(): SafeHtml {
  return page(
    { title: 'Sign out', signedIn: true },
    html`<section class="card narrow">
      <h1>Sign out?</h1>
      <p>End your session on this device. Your API keys and feeds keep working.</p>
      <form method="post" action="/signout" class="actions-row">
        <button type="submit">Sign out of this device</button>
        <a class="button secondary" href="/account">Cancel</a>
      </form>
    </section>`,
  );
}

/** The site's 404: in the site's look, with a way home (and to the account when signed in). */
export function badAddressPage(signedIn: boolean): SafeHtml {
  return page(
    { title: 'Address not understood', signedIn },
    html`<section class="card narrow">
      <h1>Address not understood</h1>
      <p>
        This address cannot be read: it has a broken %-escape (a <code>%</code> not followed by two
        hexadecimal digits, or bytes that are not UTF-8) or a part longer than 2,048 characters. The
        link may have been cut or changed on its way.
      </p>
      <p class="actions-row">
        <a class="button" href="/">Go to the start</a>
        ${signedIn ? html`<a class="button secondary" href="/account">Your account</a>` : ''}
      </p>
    </section>`,
  );
}

export function notFoundPage(signedIn: boolean): SafeHtml {
  return page(
    { title: 'Page not found', signedIn },
    html`<section class="card narrow">
      <h1>Page not found</h1>
      <p>There is no page at this address. The link may be mistyped, or the page may have moved.</p>
      <p class="actions-row">
        <a class="button" href="/">Go to the start</a>
        ${signedIn ? html`<a class="button secondary" href="/account">Your account</a>` : ''}
      </p>
    </section>`,
  );
}
