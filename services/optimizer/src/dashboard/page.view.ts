import { html, trusted, type SafeHtml } from '@aoc/safe-html';

/** The optimizer's pages' layout: server-rendered, no script, every value escaped by the `html` tag. */

const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";
const CSS = trusted(`
body { margin: 0; font: 14px/1.5 system-ui, sans-serif; color: #0f172a; background: #f8fafc; }
header { background: #0f172a; color: #fff; padding: 14px 24px; } header a { color: #fff; text-decoration: none; font-weight: 700; }
header nav { display: inline; margin-left: 24px; } header nav a { font-weight: 400; margin-right: 16px; color: #cbd5e1; }
pre { background: #fff; border: 1px solid #e2e8f0; padding: 8px; overflow-x: auto; font-size: 12px; } details { margin: 6px 0; }
.candidate, .optimized_unverified, .pending { color: #b45309; } .optimized_verified, .delivered { color: #15803d; } .ineffective, .gave_up { color: #b91c1c; } .not_configured { color: #64748b; }
main { max-width: 1180px; margin: 0 auto; padding: 24px; } h1 { font-size: 22px; margin: 0 0 6px; } h2 { font-size: 16px; margin: 26px 0 8px; }
table { border-collapse: collapse; width: 100%; background: #fff; } th, td { border-bottom: 1px solid #e2e8f0; padding: 6px 8px; text-align: left; vertical-align: top; }
th { color: #64748b; font-weight: 600; font-size: 12px; text-transform: uppercase; } .muted { color: #64748b; } code { font-size: 12px; }
.met { color: #15803d; } .gap { color: #b91c1c; } .inconclusive, .not_applicable { color: #64748b; }
`);

export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"><title>${title} · Auto-oncall optimizer</title><style>${CSS}</style></head>
<body><header><a href="/focuses">Auto-oncall · Optimizer</a><nav><a href="/focuses">Focuses</a><a href="/optimization-records">Records</a><a href="/problems">Problems</a><a href="/single-ticket">Single-ticket</a><a href="/notifications">Notifications</a></nav></header><main>${body}</main></body></html>`.value;
}

export const status = (s: string) => html`<span class="${s}">${s}</span>`;
