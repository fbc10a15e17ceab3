import { html, type SafeHtml } from '../html.js';

/**
 * Refused fields of a form, shown all at once: a summary at the top (each message a link to its
 * field), which takes the focus when the page opens (`autofocus`, no script needed), and each
 * message by its field, tied to it by `aria-describedby` (as the sign-in form does). `fieldIds`
 * names each field's element, in the form's order.
 */
export function formErrors<F extends string>(
  fieldIds: Readonly<Record<F, string>>,
  errors: Partial<Record<F, string>>,
  notSaved: string,
) {
  const refused = (Object.keys(fieldIds) as F[]).filter((f) => errors[f] !== undefined);
  return {
    /** The list of refused fields, for the top of the page ('' when none). */
    summary:
      refused.length === 0
        ? ''
        : html`<div class="error-summary" role="alert" tabindex="-1" autofocus>
            <p>
              <strong>${notSaved}</strong> ${
                refused.length === 1 ? 'one field needs' : `${refused.length} fields need`
              }
              a change.
            </p>
            <ul>
              ${refused.map((f) => html`<li><a href="#${fieldIds[f]}">${errors[f]}</a></li>`)}
            </ul>
          </div>`,
    /** A field's message, and the attributes that tie its element to it. */
    field(field: F): { message: SafeHtml | ''; attributes: SafeHtml | '' } {
      const message = errors[field];
      const id = `${fieldIds[field]}-error`;
      return message === undefined
        ? { message: '', attributes: '' }
        : {
            message: html`<p class="error field-error" id="${id}">${message}</p>`,
            attributes: html`aria-invalid="true" aria-describedby="${id}"`,
          };
    },
  };
}
