import { describe, expect, it } from 'vitest';
import { html, raw } from '../../src/web/html.js';

describe('html template tag', () => {
  it('escapes every interpolated value, attribute quotes included', () => {
    const name = `"><script>alert('x')</script>&`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
  });

  it('nests html, joins arrays and drops null, undefined and false', () => {
    const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}${raw('<br>')}`.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0<br>');
  });
});
