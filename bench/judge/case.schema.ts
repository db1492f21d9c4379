// Labelled Judge benchmark cases (bench/judge/cases/*.json): the zod schema of one case and the
// loader that validates every file. Labelling rules: bench/judge/README.md.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseFeedbackCommand } from '@aoc/feedback';
import { Decision, IsoDateTime, RunId, RunMode, RunTrigger, TicketKey, Verdict } from '@aoc/contracts';
import { z } from 'zod';

export const CASES_DIR = join(__dirname, 'cases');

/**
 * The rule tags of the set, each the rule of evaluation-system.md section 3 that decides its
 * cases. Every tag needs at least two cases (bench spec), in both directions where the rule has two.
 */
export const RULES = {
  paraphrase: 'same facts in other words -> equivalent',
  units_rounding: 'unit changes and rounding (72% vs 72.4%, +30% vs 1.3x, 140 ms vs 0.14 s, ~500 vs 500) -> equivalent',
  numeric_contradiction: 'AI number contradicted by the ticket and the human -> human_better',
  human_contradicts_evidence: "human states a fact the AI's frozen evidence contradicts -> ai_better",
  human_misses_risk: 'human misses a risk the AI named -> ai_better',
  late_customer_fact: 'facts from later customer comments never count against the AI; visible ones do',
  late_internal_fact: 'facts from a later manual query, internal note or production operation never count against the AI',
  promised_internal_query: 'AI promised a concrete internal query whose result the human reports -> not human_better (unless the query was already done)',
  customer_confirms: 'customer confirmation after the human answer confirms either answer',
  customer_correction: 'customer correction after the human answer refutes the human or the AI',
  separate_issue: '"that was a separate issue" removes the human claim from the comparison',
  no_substantive_human: 'no human reply, ack-only, progress-only, closing-only, edited to "resolved" -> not_compared',
  chaser_not_end: 'thanks, chasers and "still happening" neither end the human answer nor count as facts',
  multi_comment: 'two Support comments together form the human answer',
  correction_supersedes: 'a later Support restatement or correction supersedes the earlier comment',
  later_question_excluded: 'replies to a later, different customer question are not part of the human answer',
  other_language: 'human answer in another language: verdict per the rules (a built-in judge may abstain)',
  code_or_table: 'human answer made only of a code block or a table',
  write_fixed: 'write mode: the new version fixed what the /ao feedback named',
  write_not_fixed: 'write mode: the problem the /ao feedback named is still present -> human_better',
  write_mentioned_only: "write mode: the new version only mentions the complaint's words -> human_better",
  write_unparseable_reason: 'write mode: the feedback reason names nothing checkable -> not_compared',
  write_internal_only_bypass: 'write mode: feedback said the answer bypassed a human; typed decision decides',
  plainly_worse: 'missed visible fact, wrong owner, unsupported conclusion -> human_better',
  incidental_value: 'a ticket value the human quotes only as a target, a restated symptom or beside a pleasantry never grounds human_better',
  write_requested_kind: 'write mode: the feedback asks for a kind of fact (statement, table, replica, time); named now or not',
  reply_time_anchor: 'a human fact is later information only if it reached the human after the cutoff and before the reply that first states it',
  tier_expectation: 'on Starter/Essential/shared tiers, data the tier does not provide (topology, TopSQL, persisted Statements, Dedicated config, node_* metrics) never grounds human_better; data it provides does',
} as const;
export type RuleTag = keyof typeof RULES;
export const RULE_TAGS = Object.keys(RULES) as RuleTag[];
const Rule = z.enum(RULE_TAGS as [RuleTag, ...RuleTag[]]);

const AuthorRole = z.enum(['customer', 'support', 'engineer', 'bot', 'unknown']);
const CommentId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'comment ids are short safe identifiers');

export const CaseComment = z.strictObject({
  id: CommentId,
  authorRole: AuthorRole,
  visibility: z.enum(['public', 'internal']),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  body: z.string().min(1).max(20000),
  visibleToAi: z.boolean(),
});
export type CaseComment = z.infer<typeof CaseComment>;

export const CaseTicket = z.strictObject({
  key: TicketKey,
  title: z.string().min(1).max(500),
  description: z.string().max(50000),
  reporterRole: AuthorRole,
  createdAt: IsoDateTime,
  labels: z.array(z.string().max(64)).max(32),
});

/** A published answer version: the run.published fields a case needs (the fingerprint is computed). */
export const CaseAnswer = z.strictObject({
  runId: RunId,
  mode: RunMode,
  trigger: RunTrigger,
  requestedAt: IsoDateTime,
  publishedAt: IsoDateTime,
  cutoff: IsoDateTime.nullable(),
  decision: Decision,
  customerReplyMarkdown: z.string().min(1).max(20000),
  internalHandoffMarkdown: z.string().min(1).max(20000),
  requestedContext: z.array(z.string().min(1).max(300)).max(5),
});
export type CaseAnswer = z.infer<typeof CaseAnswer>;

const at = (iso: string) => Date.parse(iso);
/** The instant the answer's input was frozen: comments up to it (public) are visible to the AI. */
export const frozenAt = (a: CaseAnswer) => a.cutoff ?? a.requestedAt;
/** Human replies after this instant form the human answer (as the judge's planner anchors). */
export const anchorAt = (a: CaseAnswer) => a.cutoff ?? a.publishedAt;
const isSupport = (c: CaseComment) => c.authorRole === 'support' || c.authorRole === 'engineer';
const DECIDED = new Set(['ai_better', 'equivalent', 'different_but_valid', 'human_better']);

function checkAnswer(a: CaseAnswer, path: (string | number)[], ctx: z.RefinementCtx): void {
  if ((a.trigger === 'replay') !== (a.cutoff !== null)) ctx.addIssue({ code: 'custom', path: [...path, 'cutoff'], message: 'replays have a cutoff and live runs none' });
  if (a.cutoff !== null && at(a.cutoff) > at(a.requestedAt)) ctx.addIssue({ code: 'custom', path: [...path, 'cutoff'], message: 'cutoff after requestedAt' });
  if (at(a.requestedAt) > at(a.publishedAt)) ctx.addIssue({ code: 'custom', path: [...path, 'publishedAt'], message: 'published before it was requested' });
}

export const JudgeCase = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/, 'must be a lower-case slug'),
    rule: Rule,
    note: z.string().min(10).max(600),
    ticket: CaseTicket,
    answer: CaseAnswer,
    previous: CaseAnswer.optional().describe('Earlier delivered answer this write-mode version replaced'),
    timeline: z.array(CaseComment).max(500),
    expected: z.strictObject({ verdict: Verdict, humanCommentIds: z.array(CommentId).max(20) }),
  })
  .superRefine((c, ctx) => {
    checkAnswer(c.answer, ['answer'], ctx);
    const frozen = at(frozenAt(c.answer));
    const anchor = at(anchorAt(c.answer));
    if (at(c.ticket.createdAt) > frozen) ctx.addIssue({ code: 'custom', path: ['ticket', 'createdAt'], message: 'ticket created after the answer input was frozen' });
    if (c.previous) {
      checkAnswer(c.previous, ['previous'], ctx);
      if (c.answer.mode !== 'write') ctx.addIssue({ code: 'custom', path: ['answer', 'mode'], message: 'only a write-mode answer replaces a previous version' });
      if (at(c.previous.publishedAt) >= at(c.answer.publishedAt)) ctx.addIssue({ code: 'custom', path: ['previous', 'publishedAt'], message: 'previous must be published before the answer' });
      if (c.previous.trigger === 'replay' && c.previous.mode !== 'write') ctx.addIssue({ code: 'custom', path: ['previous', 'mode'], message: 'a read-mode replay was never delivered' });
      if (c.previous.customerReplyMarkdown === c.answer.customerReplyMarkdown && c.previous.internalHandoffMarkdown === c.answer.internalHandoffMarkdown) {
        ctx.addIssue({ code: 'custom', path: ['previous'], message: 'previous must be a different answer version (fingerprint)' });
      }
      if (c.previous.runId === c.answer.runId) ctx.addIssue({ code: 'custom', path: ['previous', 'runId'], message: 'previous needs its own run id' });
    }
    const ids = new Set<string>();
    c.timeline.forEach((m, i) => {
      const path = ['timeline', i];
      if (ids.has(m.id)) ctx.addIssue({ code: 'custom', path: [...path, 'id'], message: `duplicate comment id ${m.id}` });
      ids.add(m.id);
      if (at(m.createdAt) < at(c.ticket.createdAt)) ctx.addIssue({ code: 'custom', path: [...path, 'createdAt'], message: 'comment before the ticket' });
      if (at(m.updatedAt) < at(m.createdAt)) ctx.addIssue({ code: 'custom', path: [...path, 'updatedAt'], message: 'updated before created' });
      if (i > 0 && at(m.createdAt) < at(c.timeline[i - 1].createdAt)) ctx.addIssue({ code: 'custom', path: [...path, 'createdAt'], message: 'timeline not in creation order' });
      const visible = m.visibility === 'public' && at(m.createdAt) <= frozen;
      if (m.visibleToAi !== visible) ctx.addIssue({ code: 'custom', path: [...path, 'visibleToAi'], message: `must be ${visible} (public and created at or before ${frozenAt(c.answer)})` });
      if (m.authorRole !== 'bot' && at(m.createdAt) > frozen && at(m.createdAt) <= anchor) ctx.addIssue({ code: 'custom', path: [...path, 'createdAt'], message: 'comment between the frozen input and the anchor: neither seen by the AI nor part of the human answer' });
    });
    const byId = new Map(c.timeline.map((m) => [m.id, m]));
    let last = Number.NEGATIVE_INFINITY;
    c.expected.humanCommentIds.forEach((id, i) => {
      const path = ['expected', 'humanCommentIds', i];
      const m = byId.get(id);
      if (!m) return ctx.addIssue({ code: 'custom', path, message: `no comment ${id} in the timeline` });
      if (m.visibility !== 'public' || !isSupport(m)) ctx.addIssue({ code: 'custom', path, message: `${id} is not a public support/engineer comment` });
      if (at(m.createdAt) <= anchor) ctx.addIssue({ code: 'custom', path, message: `${id} is not after the anchor ${anchorAt(c.answer)}` });
      if (parseFeedbackCommand(m.body) !== null) ctx.addIssue({ code: 'custom', path, message: `${id} is an /ao command` });
      if (at(m.createdAt) <= last) ctx.addIssue({ code: 'custom', path, message: 'ids must be unique and in time order' });
      last = at(m.createdAt);
    });
    if (DECIDED.has(c.expected.verdict) && c.expected.humanCommentIds.length === 0 && !c.previous) {
      ctx.addIssue({ code: 'custom', path: ['expected', 'humanCommentIds'], message: 'a decided verdict without a previous version needs a human answer' });
    }
  });
export type JudgeCase = z.infer<typeof JudgeCase>;

export const CaseFile = z.strictObject({
  theme: z.string().min(3).max(200),
  cases: z.array(JudgeCase).min(1),
});

export interface LoadedCase {
  file: string;
  case: JudgeCase;
}

/** Names a zod issue path as `cases[3] (id "x").timeline[2].visibleToAi`. */
function fieldOf(path: readonly PropertyKey[], raw: unknown): string {
  let out = '';
  path.forEach((p, i) => {
    if (typeof p === 'number') {
      out += `[${p}]`;
      if (i === 1 && path[0] === 'cases' && raw && typeof raw === 'object' && 'cases' in raw && Array.isArray(raw.cases)) {
        const entry: unknown = raw.cases[p];
        if (entry && typeof entry === 'object' && 'id' in entry && typeof entry.id === 'string') out += ` (id "${entry.id}")`;
      }
    } else out += `${out ? '.' : ''}${String(p)}`;
  });
  return out || '(root)';
}

/** Parses one case file; throws naming the file and every bad field. */
export function parseCaseFile(file: string, text: string): LoadedCase[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = CaseFile.safeParse(raw);
  if (!parsed.success) throw new Error(`${file}:\n${parsed.error.issues.map((i) => `  ${fieldOf(i.path, raw)}: ${i.message}`).join('\n')}`);
  return parsed.data.cases.map((c) => ({ file, case: c }));
}

/** Every case of every `*.json` in `dir`, by file name then order in the file; ids must be unique. */
export function loadCases(dir: string = CASES_DIR): LoadedCase[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (files.length === 0) throw new Error(`${dir}: no case files`);
  const loaded = files.flatMap((f) => parseCaseFile(f, readFileSync(join(dir, f), 'utf8')));
  const seen = new Map<string, string>();
  for (const { file, case: c } of loaded) {
    const other = seen.get(c.id);
    if (other) throw new Error(`${file}: case id "${c.id}" already used in ${other}`);
    seen.set(c.id, file);
  }
  return loaded;
}
