import { escapeHtml, href, html, trusted } from './safe-html';

describe('safe-html', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('escapes interpolated text but keeps nested fragments and trusted markup as they are', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${'<script>'}${inner}${trusted('<br>')}</p>`.value).toBe('<p>&lt;script&gt;<b>&lt;i&gt;</b><br></p>');
  });

  it('renders arrays joined, numbers as text and null/undefined/false as nothing', () => {
    expect(html`${[1, '<', null, undefined, false, html`<hr>`]}`.value).toBe('1&lt;<hr>');
  });

  it('cannot break out of a quoted attribute', () => {
    expect(html`<a title="${'" onmouseover="alert(1)'}">`.value).toBe('<a title="&quot; onmouseover=&quot;alert(1)">');
  });

  it('builds percent-encoded dashboard URLs', () => {
    expect(href(['tickets', 'SUP-1/../x'])).toBe('/tickets/SUP-1%2F..%2Fx');
    expect(href([], { limit: 10, before: 'a&b', skip: undefined })).toBe('/?limit=10&before=a%26b');
    expect(href(['providers'])).toBe('/providers');
  });
});
