// Diagnosis benchmark: the printed tables and the JSON results.
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import type { Aggregate, CaseResult, Target } from '../../tools/launcher/src/diagnosis-bench/score';

const pct = (k: number, n: number): string => (n === 0 ? '-' : `${k}/${n} ${((k / n) * 100).toFixed(0)}%`);

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(' | ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.slice(1).map(line)].join('\n');
}

export function aggregateTable(first: string, rows: readonly Aggregate[], extra: { mention?: boolean; herring?: boolean } = {}): string {
  const head = [first, 'n', 'family (engine)', 'family (reference)', 'decision ok', 'names a cause', 'cause or missing', ...(extra.mention ? ['mentions'] : []), ...(extra.herring ? ['took red herring'] : []), 'crash/timeout'];
  const body = rows.map((a) => [
    a.label,
    String(a.n),
    pct(a.family, a.n),
    pct(a.reference, a.referenceN),
    pct(a.decision, a.n),
    pct(a.namesCause, a.n),
    pct(a.causeOrMissing, a.n),
    ...(extra.mention ? [pct(a.mention, a.mentionN)] : []),
    ...(extra.herring ? [pct(a.herring, a.herringN)] : []),
    `${a.crashes}/${a.timeouts}`,
  ]);
  return table([head, ...body]);
}

export function caseLines(results: readonly CaseResult[]): string {
  const rows = [['case', 'expected', 'state', 'engine family (strength)', 'decision', 'reference', 'ok']];
  for (const r of results) {
    const e = r.engine;
    const got = e.status === 'published' ? `${e.leadingFamily ?? '-'} (${e.leadingStrength ?? '-'})` : e.status;
    const marks = `${r.familyOk ? 'F' : '.'}${r.decisionOk ? 'D' : '.'}${r.mentionOk === null ? '' : r.mentionOk ? 'M' : 'm'}${r.herringTaken ? '!' : ''}`;
    rows.push([r.id, `${r.families.join('|')} / ${r.decisions.join('|')}`, r.state ?? '-', got, e.decision ?? '-', r.reference ? `${r.reference.family} <- ${r.reference.metric ?? '-'}` : '-', marks]);
  }
  return table(rows);
}

export interface Report {
  title: string;
  meta: Record<string, string>;
  sections: { title: string; text: string }[];
  targets: Target[];
  notes: string[];
}

export function printReport(r: Report): void {
  const out: string[] = ['', `== ${r.title} ==`];
  out.push(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${os.platform()} ${os.arch()}, node ${process.version}`);
  for (const [k, v] of Object.entries(r.meta)) out.push(`${k}: ${v}`);
  for (const s of r.sections) out.push('', `-- ${s.title} --`, s.text);
  out.push('', '-- targets (reported, never a failure of this command) --');
  out.push(table([['target', 'goal', 'value', 'result'], ...r.targets.map((t) => [t.name, t.goal, t.value, t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'MISS'])]));
  if (r.notes.length > 0) out.push('', ...r.notes.map((n) => `note: ${n}`));
  out.push('');
  process.stdout.write(out.join('\n') + '\n');
}

export function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

/** Where the engine's evidence stood: briefs per evidence status, and the most frequent "undetermined" lines (ids and numbers folded). */
export function evidenceLines(results: readonly CaseResult[], top = 6): string {
  const statuses = new Map<string, number>();
  const gaps = new Map<string, number>();
  for (const r of results) {
    for (const b of r.engine.briefs) {
      statuses.set(b.evidenceStatus ?? 'none', (statuses.get(b.evidenceStatus ?? 'none') ?? 0) + 1);
      for (const u of new Set(b.undetermined.map((x) => x.replace(/\b[\w.-]*\d[\w.-]*\b/g, '<id>')))) gaps.set(u, (gaps.get(u) ?? 0) + 1);
    }
  }
  const lines = [`briefs by evidence status: ${[...statuses].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`];
  for (const [text, n] of [...gaps].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${String(n).padStart(5)} x ${text.slice(0, 160)}`);
  return lines.join('\n');
}
