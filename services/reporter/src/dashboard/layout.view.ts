import { html, trusted, type HtmlValue, type SafeHtml } from '@aoc/safe-html';

export type NavSection = 'runs' | 'daily' | 'weekly' | 'providers';

const NAV: { section: NavSection; label: string; path: string }[] = [
  { section: 'runs', label: 'Runs', path: '/' },
  { section: 'daily', label: 'Daily report', path: '/reports/daily' },
  { section: 'weekly', label: 'Weekly report', path: '/reports/weekly' },
  { section: 'providers', label: 'Provider health', path: '/providers' },
];

// No script and no external asset: the CSP forbids both, so even a missed escape stays inert.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const CSS = trusted(`
:root { color-scheme: light; --fg: #0f172a; --muted: #64748b; --line: #e2e8f0; --bg: #f8fafc; --card: #fff; --accent: #2563eb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { background: #0f172a; color: #fff; }
header.top .inner { max-width: 1180px; margin: 0 auto; padding: 0 24px; display: flex; align-items: center; gap: 28px; height: 52px; }
header.top .brand { font-weight: 700; letter-spacing: .01em; color: #fff; text-decoration: none; }
header.top .brand span { color: #93c5fd; font-weight: 500; }
nav a { color: #cbd5e1; text-decoration: none; padding: 15px 2px; margin-right: 18px; border-bottom: 3px solid transparent; }
nav a:hover { color: #fff; }
nav a[aria-current="page"] { color: #fff; border-bottom-color: #60a5fa; }
main { max-width: 1180px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
h3 { font-size: 14px; margin: 0 0 8px; }
h3.spaced { margin-top: 14px; }
.sub { color: var(--muted); margin: 0 0 18px; }
a { color: var(--accent); }
section.card, div.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px 18px; margin-bottom: 16px; }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; color: #334155; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
tr:last-child td { border-bottom: none; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
code { background: #f1f5f9; padding: 1px 4px; border-radius: 4px; }
pre { background: #f1f5f9; padding: 10px 12px; border-radius: 6px; overflow-x: auto; }
pre code { background: none; padding: 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; white-space: nowrap; border: 1px solid transparent; }
.tone-good { background: #dcfce7; color: #166534; border-color: #bbf7d0; }
.tone-ok { background: #ccfbf1; color: #115e59; border-color: #99f6e4; }
.tone-info { background: #dbeafe; color: #1e40af; border-color: #bfdbfe; }
.tone-warn { background: #fef3c7; color: #92400e; border-color: #fde68a; }
.tone-bad { background: #fee2e2; color: #991b1b; border-color: #fecaca; }
.tone-muted { background: #f1f5f9; color: #475569; border-color: #e2e8f0; }
.grid { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); }
.stats { display: grid; gap: 12px; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); margin-bottom: 8px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.stat .value { font-size: 24px; font-weight: 700; font-variant-numeric: tabular-nums; }
.stat .label { color: var(--muted); font-size: 12px; }
.stat small { font-size: 13px; color: var(--muted); font-weight: 500; margin-left: 4px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 0; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; }
dl.meta dd ul { margin: 0; padding-left: 18px; }
.message { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 4px 18px 10px; }
.message h3 { margin-top: 12px; color: #334155; }
.message ul, .message ol { padding-left: 22px; }
.empty { color: var(--muted); font-style: italic; margin: 8px 0; }
.pager { display: flex; gap: 16px; margin-top: 12px; }
form.period { display: flex; gap: 8px; align-items: center; margin: 0 0 18px; flex-wrap: wrap; }
form.period input { font: inherit; padding: 4px 6px; border: 1px solid #cbd5e1; border-radius: 6px; }
form.period button { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
svg.chart { max-width: 100%; height: auto; display: block; }
details summary { cursor: pointer; color: var(--accent); margin: 8px 0; }
.error-box { border-left: 4px solid #dc2626; }
footer { color: var(--muted); font-size: 12px; margin-top: 32px; }
`);

export function renderPage(page: { title: string; section: NavSection | null; body: SafeHtml }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${page.title} · Auto-oncall</title>
<style>${CSS}</style>
</head>
<body>
<header class="top"><div class="inner"><a class="brand" href="/">Auto-oncall <span>reporter</span></a>
<nav aria-label="Dashboard">${NAV.map((n) => html`<a href="${n.path}"${n.section === page.section ? trusted(' aria-current="page"') : ''}>${n.label}</a>`)}</nav></div></header>
<main>
${page.body}
<footer>Times are shown in Asia/Shanghai (UTC+8); report days are Shanghai calendar days.</footer>
</main>
</body>
</html>
`.value;
}

export type Tone = 'good' | 'ok' | 'info' | 'warn' | 'bad' | 'muted';

export function badge(text: HtmlValue, tone: Tone): SafeHtml {
  return html`<span class="badge tone-${tone}">${text}</span>`;
}

const VERDICT_TONE: Record<string, Tone> = { ai_better: 'good', equivalent: 'ok', different_but_valid: 'info', human_better: 'bad', not_compared: 'muted' };

export function verdictBadge(verdict: string | null): SafeHtml {
  return verdict === null ? badge('not judged yet', 'muted') : badge(verdict, VERDICT_TONE[verdict] ?? 'muted');
}

const EVIDENCE_TONE: Record<string, Tone> = { complete: 'good', partial: 'warn', degraded: 'warn', failed: 'bad', not_attempted: 'muted' };

export function evidenceBadge(status: string | null): SafeHtml {
  return status === null ? badge('not recorded yet', 'muted') : badge(status, EVIDENCE_TONE[status] ?? 'muted');
}

const DECISION_TONE: Record<string, Tone> = { internal_only: 'good', human_required: 'warn', clarification_needed: 'info' };

export function decisionBadge(decision: string): SafeHtml {
  return badge(decision, DECISION_TONE[decision] ?? 'muted');
}

/** `2026-11-20 19:05` in Asia/Shanghai, inside a <time> carrying the exact instant. */
export function shanghaiTime(iso: string): SafeHtml {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return html`${iso}`;
  const local = new Date(ms + 8 * 60 * 60 * 1000).toISOString();
  return html`<time datetime="${iso}">${local.slice(0, 10)} ${local.slice(11, 16)}</time>`;
}

export function stat(label: string, value: HtmlValue): SafeHtml {
  return html`<div class="stat"><div class="value">${value}</div><div class="label">${label}</div></div>`;
}

export function percent(value: number | null): string {
  return value === null ? 'n/a' : `${(Math.round(value * 1000) / 10).toFixed(1)}%`;
}
