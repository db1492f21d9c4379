import { escapeHtml, trusted, type SafeHtml } from '@aoc/safe-html';

/**
 * Renders the small Markdown subset the messages use: paragraphs (single newlines kept as line
 * breaks, as in ticket comments), bullet and numbered lists, **bold**, `code` and fenced code.
 * Text is escaped before any markup is added, and links or raw HTML are never interpreted, so
 * an AI answer or ticket text cannot inject elements.
 */
export function renderMarkdown(source: string): SafeHtml {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | null = null;

  const flushParagraph = (): void => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(renderInline).join('<br>')}</p>`);
    paragraph = [];
  };
  const flushList = (): void => {
    if (list) out.push(`<${list.tag}>${list.items.map((i) => `<li>${i}</li>`).join('')}</${list.tag}>`);
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      flushParagraph();
      flushList();
      const code: string[] = [];
      // An unclosed fence runs to the end, as in CommonMark.
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (line.trim() === '') {
      flushParagraph();
      flushList();
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = bullet ? null : /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      flushParagraph();
      const tag = bullet ? 'ul' : 'ol';
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push(renderInline(item[1]));
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      // An indented line continues the previous item.
      list.items[list.items.length - 1] += `<br>${renderInline(line.trim())}`;
      continue;
    }
    flushList();
    paragraph.push(line.trim());
  }
  flushParagraph();
  flushList();
  return trusted(out.join('\n'));
}

/** `code` spans first (their content is literal), then **bold** in the remaining text. */
function renderInline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.length > 2 && part.startsWith('`') && part.endsWith('`')) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part).replace(/\*\*(\S(?:.*?\S)?)\*\*/g, '<strong>$1</strong>');
    })
    .join('');
}
