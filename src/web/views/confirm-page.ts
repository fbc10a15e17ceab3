import { html, type SafeHtml } from '../html.js';
import { page } from './layout.js';

/** A confirm step that needs no script: a page whose one form does the change. */
export function confirmStepPage(options: {
  /** The page's title and heading. */
  title: string;
  question: SafeHtml;
  consequence: SafeHtml | string;
  action: string;
  button: string;
  buttonLabel?: string;
  cancel: string;
}): SafeHtml {
  return page(
    { title: options.title, signedIn: true },
    html`<section class="card narrow confirm">
      <h1>${options.title}</h1>
      <p>${options.question}</p>
      <p>${options.consequence}</p>
      <form method="post" action="${options.action}" class="actions-row">
        <button
          type="submit"
          class="danger-solid"
          ${options.buttonLabel ? html`aria-label="${options.buttonLabel}"` : ''}
        >
          ${options.button}
        </button>
        <a class="button secondary" href="${options.cancel}">Cancel</a>
      </form>
    </section>`,
  );
}
