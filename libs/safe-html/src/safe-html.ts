/**
 * HTML built only through the `html` tag: every interpolated value is escaped unless it is
 * already `SafeHtml`, so untrusted ticket text and AI answers cannot become markup by accident.
 */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  // false/null/undefined render nothing so conditionals can be written inline.
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Marks markup produced by this module's own code (never user data) as safe. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Builds a dashboard-relative URL; path segments and query values are percent-encoded. */
export function href(segments: readonly string[], query: Record<string, string | number | undefined> = {}): string {
  const path = '/' + segments.map((s) => encodeURIComponent(s)).join('/');
  const params = Object.entries(query).filter((e): e is [string, string | number] => e[1] !== undefined);
  if (params.length === 0) return path;
  return `${path}?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;
}
