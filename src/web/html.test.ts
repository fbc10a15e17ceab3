import { describe, expect, it } from 'vitest';
import { html } from './html.js';

describe('html', () => {
  it('escapes text in content and attributes', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
  });

  it('keeps nested templates, joins lists and drops empty values', () => {
    const items = ['a<', 'b'].map((x) => html`<li>${x}</li>`);
    // prettier-ignore
    const out = html`<ul>${items}</ul>${null}${undefined}${false}${0}`;
    expect(out.value).toBe('<ul><li>a&lt;</li><li>b</li></ul>0');
  });
});
