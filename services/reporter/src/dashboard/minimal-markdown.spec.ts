import { renderMarkdown } from './minimal-markdown';

const md = (s: string): string => renderMarkdown(s).value;

describe('renderMarkdown', () => {
  it('renders a <script> in an answer as inert text', () => {
    const out = md('Hello <script>alert(1)</script> and <img src=x onerror="alert(2)">');
    expect(out).not.toMatch(/<script|<img/i);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
  });

  it('splits paragraphs on blank lines and keeps single newlines as line breaks', () => {
    expect(md('one\ntwo\n\nthree')).toBe('<p>one<br>two</p>\n<p>three</p>');
  });

  it('renders bullet and numbered lists, also right after a bold label line', () => {
    expect(md('**Observations:**\n- a\n- b\n1. first\n2) second')).toBe(
      '<p><strong>Observations:</strong></p>\n<ul><li>a</li><li>b</li></ul>\n<ol><li>first</li><li>second</li></ol>',
    );
  });

  it('continues a list item on an indented line', () => {
    expect(md('- a\n  more\n- b')).toBe('<ul><li>a<br>more</li><li>b</li></ul>');
  });

  it('renders inline code literally, without bold inside it', () => {
    expect(md('run `**not bold** <b>` now **bold**')).toBe('<p>run <code>**not bold** &lt;b&gt;</code> now <strong>bold</strong></p>');
  });

  it('renders fenced code blocks escaped, including an unclosed fence', () => {
    expect(md('before\n```\n<x> & y\n```\nafter')).toBe('<p>before</p>\n<pre><code>&lt;x&gt; &amp; y</code></pre>\n<p>after</p>');
    expect(md('```\nopen')).toBe('<pre><code>open</code></pre>');
  });

  it('does not turn links or HTML entities into markup', () => {
    expect(md('[click](javascript:alert(1)) &amp;')).toBe('<p>[click](javascript:alert(1)) &amp;amp;</p>');
  });

  it('keeps unmatched markers as text and handles CRLF and empty input', () => {
    expect(md('a ** b')).toBe('<p>a ** b</p>');
    expect(md('x\r\ny')).toBe('<p>x<br>y</p>');
    expect(md('')).toBe('');
  });
});
