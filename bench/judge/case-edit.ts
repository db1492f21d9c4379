// Edits of a labelled case that the metamorphic transformations compose: rewriting comment text
// outside protected spans, splitting and joining sentences, and placing a comment at a free instant
// before the frozen input or after the anchor. Every edit returns a new case; the caller validates it.
import { anchorAt, frozenAt, type CaseComment, type JudgeCase } from './case.schema';
import { PROTECTED } from './metamorphic.data';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Rewrites the parts of `text` outside code, quoted literals and assignments. */
export function rewriteProse(text: string, rewrite: (prose: string) => string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(PROTECTED)) {
    const index = m.index ?? 0;
    out += rewrite(text.slice(last, index)) + m[0];
    last = index + m[0].length;
  }
  return out + rewrite(text.slice(last));
}

/** Sentences of a line: a full stop (not an ellipsis) before a capital; never inside parentheses. */
export function splitSentences(line: string): string[] {
  const parts = line.trim().split(/(?<=[^.][.!?])\s+(?=[A-Z(])/);
  const balanced = (s: string) => (s.match(/\(/g) ?? []).length === (s.match(/\)/g) ?? []).length;
  return parts.every(balanced) ? parts : [line.trim()];
}

/** Sentences of a one-paragraph prose body; null when the body has lines, code or a table (order there carries structure). */
export function sentencesOf(body: string): string[] | null {
  if (/\n|```|\|/.test(body.trim())) return null;
  return splitSentences(body);
}

export const isSupport = (m: CaseComment) => m.authorRole === 'support' || m.authorRole === 'engineer';

/** The comments of the labelled human answer, in order. */
export const humanAnswer = (c: JudgeCase): CaseComment[] => c.timeline.filter((m) => c.expected.humanCommentIds.includes(m.id));

/** The case with the bodies of the given comments rewritten; null when no body changed. */
export function withBodies(c: JudgeCase, ids: readonly string[], rewrite: (body: string, m: CaseComment) => string): JudgeCase | null {
  let changed = false;
  const timeline = c.timeline.map((m) => {
    if (!ids.includes(m.id)) return m;
    const body = rewrite(m.body, m);
    if (body === m.body) return m;
    changed = true;
    return { ...m, body };
  });
  return changed ? { ...c, timeline } : null;
}

/** A comment id not used in the case. */
export function freshId(c: JudgeCase, stem: string): string {
  const used = new Set(c.timeline.map((m) => m.id));
  let n = 1;
  while (used.has(`${stem}-${n}`)) n++;
  return `${stem}-${n}`;
}

/** The case with a comment inserted in creation order (its createdAt must be free). */
export function withComment(c: JudgeCase, m: CaseComment): JudgeCase {
  const timeline = [...c.timeline, m].sort((a, b) => at(a.createdAt) - at(b.createdAt));
  return { ...c, timeline };
}

/** An instant strictly between two instants and apart from every comment, or null when the gap is under two seconds. */
function between(c: JudgeCase, after: number, before: number): string | null {
  if (before - after < 2000) return null;
  const t = after + Math.min(60_000, Math.floor((before - after) / 2));
  return c.timeline.some((m) => at(m.createdAt) === t) ? null : iso(t);
}

const next = (c: JudgeCase, t: number) => Math.min(...c.timeline.map((m) => at(m.createdAt)).filter((x) => x > t), t + 3_600_000);

/** Right after the anchor, before the next comment. */
export const afterAnchor = (c: JudgeCase) => between(c, at(anchorAt(c.answer)), next(c, at(anchorAt(c.answer))));

/** Right after `ms`, before the next comment. */
export const afterInstant = (c: JudgeCase, ms: number) => between(c, ms, next(c, ms));

/** Just before the frozen input: after the ticket and every comment the AI saw. */
export function beforeFrozen(c: JudgeCase): string | null {
  const frozen = at(frozenAt(c.answer));
  const seen = c.timeline.map((m) => at(m.createdAt)).filter((t) => t <= frozen);
  const from = Math.max(at(c.ticket.createdAt), ...seen);
  return frozen - from < 2000 ? null : iso(frozen - Math.min(60_000, Math.floor((frozen - from) / 2)));
}

/** A new comment of the case's timeline (visibleToAi derived from the frozen instant). */
export function comment(c: JudgeCase, fields: Pick<CaseComment, 'id' | 'authorRole' | 'visibility' | 'createdAt' | 'body'>): CaseComment {
  const visibleToAi = fields.visibility === 'public' && at(fields.createdAt) <= at(frozenAt(c.answer));
  return { ...fields, updatedAt: fields.createdAt, visibleToAi };
}

/** Replaces `{key}` placeholders. */
export const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_m, k: string) => values[k] ?? '');

/** Deterministic pick from a list by case id (variety without randomness). */
export function pick<T>(list: readonly T[], key: string): T {
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return list[h % list.length];
}

/** Just before the comment at `ms`: after the anchor and after every earlier comment. */
export function justBefore(c: JudgeCase, ms: number): string | null {
  const earlier = c.timeline.map((m) => at(m.createdAt)).filter((t) => t < ms);
  const from = Math.max(at(anchorAt(c.answer)), ...earlier);
  return ms - from < 2000 ? null : iso(ms - Math.min(60_000, Math.floor((ms - from) / 2)));
}

/** The body keeping only the sentences of prose lines and the table rows or code lines that `keep` accepts (fences and rules stay). */
export function keepSentences(body: string, keep: (unit: string) => boolean): string {
  const frame = (line: string) => /^\s*```|^\s*\|?[-:| ]+\|?\s*$/.test(line);
  const row = (line: string) => /^\s*\|/.test(line);
  const kept = body.split('\n').map((line) => {
    if (frame(line)) return line;
    if (row(line)) return keep(line) ? line : '';
    return splitSentences(line).filter(keep).join(' ');
  });
  return kept.filter((line) => line.trim() !== '').join('\n').trim();
}

/** The case with every instant it holds (ticket, answer versions, comments) rewritten by `map`; texts untouched. */
export function retimed(c: JudgeCase, map: (instant: string) => string): JudgeCase {
  const answer = (a: JudgeCase['answer']) => ({ ...a, requestedAt: map(a.requestedAt), publishedAt: map(a.publishedAt), cutoff: a.cutoff === null ? null : map(a.cutoff) });
  return {
    ...c,
    ticket: { ...c.ticket, createdAt: map(c.ticket.createdAt) },
    answer: answer(c.answer),
    ...(c.previous ? { previous: answer(c.previous) } : {}),
    timeline: c.timeline.map((m) => ({ ...m, createdAt: map(m.createdAt), updatedAt: map(m.updatedAt) })),
  };
}

/** The instant moved by `ms`, in UTC. */
export const shifted = (instant: string, ms: number) => iso(at(instant) + ms);

/** The same instant written at a UTC offset of `minutes` (`2026-12-06T15:00:00Z` at +480 -> `2026-12-06T23:00:00+08:00`). */
export function atOffset(instant: string, minutes: number): string {
  const local = new Date(at(instant) + minutes * 60_000).toISOString().replace(/\.000Z$|Z$/, '');
  const abs = Math.abs(minutes);
  return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
