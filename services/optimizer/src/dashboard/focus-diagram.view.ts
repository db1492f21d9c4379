import { html, type SafeHtml } from '@aoc/safe-html';
import type { FocusStatus } from '../focus/focus-machine';
import { focusDiagram, moveKey, takenCounts, type DiagramNode, type PathStep } from '../focus/focus-path';

/**
 * The Focus state machine drawn as an inline SVG (no script, no external resource): every status
 * of `focus-machine.ts` as a box, every move as an arrow labelled with its outcomes, the moves
 * that keep a status folded into a "↻" line of its box. The Focus's current status is filled, the
 * statuses and moves on its path are drawn in blue (with how often a move was taken), final
 * statuses have a double border.
 */

const PAD = 24;
const NODE_W = 150;
const NODE_H = 44;
const FIRST_COLUMN = 170;
const COLUMN_PITCH = 300;
const ROW_PITCH = 64;
/** Room above the rows for arrows that pass over a column. */
const ARC_ROOM = 50;

interface Box {
  node: DiagramNode;
  x: number;
  cy: number;
}

export function renderFocusDiagram(status: FocusStatus, path: readonly PathStep[]): SafeHtml {
  const diagram = focusDiagram();
  const counts = takenCounts(path);
  const visited = new Set<string>(path.flatMap((s) => [s.from, s.to]));
  const mid = PAD + ARC_ROOM + ((diagram.rows - 1) / 2) * ROW_PITCH + NODE_H / 2;
  const boxes = new Map<string, Box>(diagram.nodes.map((node) => [node.id, { node, x: node.column === 0 ? PAD : PAD + FIRST_COLUMN + (node.column - 1) * COLUMN_PITCH, cy: mid + node.row * ROW_PITCH }]));
  const width = PAD * 2 + FIRST_COLUMN + (diagram.columns - 2) * COLUMN_PITCH + NODE_W;
  const height = mid + ((diagram.rows - 1) / 2) * ROW_PITCH + NODE_H / 2 + PAD;
  const top = Math.min(...[...boxes.values()].map((b) => b.cy)) - NODE_H / 2;

  const edges = diagram.edges.map((e) => {
    const from = boxes.get(e.from);
    const to = boxes.get(e.to);
    if (!from || !to) return html``;
    const x1 = from.node.column === 0 ? from.x + 20 : from.x + NODE_W;
    const y1 = from.cy;
    const x2 = to.x;
    const y2 = to.cy;
    const taken = e.outcomes.reduce((n, o) => n + (counts.get(moveKey(e.from, o, e.to)) ?? 0), 0);
    const skips = to.node.column - from.node.column > 1;
    // An arrow that passes over a column arcs above the rows; the others are S-curves.
    const c = skips ? top - 80 : 0;
    const d = skips ? `M ${x1} ${y1} C ${x1 + 80} ${c}, ${x2 - 80} ${c}, ${x2} ${y2}` : `M ${x1} ${y1} C ${(x1 + x2) / 2} ${y1}, ${(x1 + x2) / 2} ${y2}, ${x2} ${y2}`;
    const lx = (x1 + x2) / 2;
    const ly = skips ? (y1 + 6 * c + y2) / 8 - 4 : (y1 + y2) / 2 - 4;
    const label = `${e.outcomes.join(' | ')}${taken > 1 ? ` ×${taken}` : ''}`;
    return html`<g class="${taken > 0 ? 'edge taken' : 'edge'}"><title>${e.from === 'none' ? 'entry' : e.from} → ${e.to}: ${e.outcomes.join(', ')}${taken > 0 ? ` (taken ${taken}×)` : ''}</title>
<path d="${d}" fill="none" stroke="${taken > 0 ? '#2563eb' : '#cbd5e1'}" stroke-width="${taken > 0 ? 2.5 : 1.5}" marker-end="url(#${taken > 0 ? 'fsm-arrow-taken' : 'fsm-arrow'})"/>
<text x="${lx}" y="${ly}" text-anchor="middle" font-size="10" fill="${taken > 0 ? '#1d4ed8' : '#94a3b8'}" stroke="#fff" stroke-width="3" paint-order="stroke">${label}</text></g>`;
  });

  const nodes = [...boxes.values()].map(({ node, x, cy }) => {
    if (node.id === 'none') {
      return html`<g class="${visited.has('none') ? 'node visited' : 'node'}"><title>entry: a Focus is created selected</title><circle cx="${x + 10}" cy="${cy}" r="10" fill="#0f172a"/></g>`;
    }
    const current = node.id === status;
    const seen = visited.has(node.id);
    const loops = node.selfLoops;
    const loopsTaken = loops.reduce((n, o) => n + (counts.get(moveKey(node.id, o, node.id as FocusStatus)) ?? 0), 0);
    const y = cy - NODE_H / 2;
    const stroke = current ? '#b45309' : seen ? '#2563eb' : '#94a3b8';
    return html`<g class="${['node', current ? 'current' : '', seen ? 'visited' : ''].filter(Boolean).join(' ')}" data-status="${node.id}"><title>${node.id}${current ? ' (current)' : ''}${node.final ? ' — final' : ''}${loops.length ? `; stays ${node.id} on ${loops.join(', ')}` : ''}</title>
<rect x="${x}" y="${y}" width="${NODE_W}" height="${NODE_H}" rx="8" fill="${current ? '#fde68a' : '#fff'}" stroke="${stroke}" stroke-width="${current || seen ? 2.5 : 1.5}"/>
${node.final ? html`<rect x="${x + 3}" y="${y + 3}" width="${NODE_W - 6}" height="${NODE_H - 6}" rx="6" fill="none" stroke="${stroke}" stroke-width="1"/>` : ''}
<text x="${x + NODE_W / 2}" y="${y + (loops.length ? 18 : 27)}" text-anchor="middle" font-size="13" font-weight="${current ? 700 : 600}" fill="#0f172a">${node.id}</text>
${loops.length ? html`<text x="${x + NODE_W / 2}" y="${y + 34}" text-anchor="middle" font-size="10" fill="${loopsTaken > 0 ? '#1d4ed8' : '#94a3b8'}">↻ ${loops.length} outcome${loops.length > 1 ? 's' : ''}${loopsTaken > 0 ? `, taken ${loopsTaken}×` : ''}</text>` : ''}</g>`;
  });

  return html`<svg class="fsm" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${`Focus state machine; current status ${status}`}" style="max-width:${width}px;background:#fff;border:1px solid #e2e8f0">
<defs><marker id="fsm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#cbd5e1"/></marker>
<marker id="fsm-arrow-taken" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#2563eb"/></marker></defs>
${edges}${nodes}</svg>`;
}

/** The path as a table: each move, when, why; inferred moves are marked. */
export function renderFocusPath(path: readonly PathStep[]): SafeHtml {
  return html`<table><thead><tr><th>#</th><th>From</th><th>Outcome</th><th>To</th><th>At</th><th>Reason</th></tr></thead><tbody>
${path.map((s, i) => html`<tr${s.inferred ? html` class="muted"` : ''}><td>${i + 1}</td><td>${s.from === 'none' ? '—' : s.from}</td><td><code>${s.outcome}</code>${s.inferred ? ' (inferred from checkpoints)' : ''}</td><td>${s.to}</td><td>${s.at ?? '—'}</td><td>${s.reason ?? ''}</td></tr>`)}
</tbody></table>`;
}
