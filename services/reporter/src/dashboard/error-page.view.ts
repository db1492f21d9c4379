import { renderPage } from './layout.view';
import { html } from '@aoc/safe-html';

export interface ErrorPage {
  status: number;
  title: string;
  message: string;
  /** Offending parameters, named so the caller can fix the URL. */
  issues?: { field: string; message: string }[];
}

export function renderErrorPage(error: ErrorPage): string {
  const body = html`<section class="card error-box" role="alert">
<h1>${error.status} · ${error.title}</h1>
<p>${error.message}</p>
${
  error.issues && error.issues.length > 0
    ? html`<ul class="issues">${error.issues.map((i) => html`<li><code>${i.field}</code>: ${i.message}</li>`)}</ul>`
    : ''
}
<p><a href="/">Back to runs</a></p>
</section>`;
  return renderPage({ title: `${error.status} ${error.title}`, section: null, body });
}
