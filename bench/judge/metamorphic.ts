// Metamorphic relations of the Judge benchmark: generic transformations of a labelled case, each
// with the relation its verdict must keep (the same verdict as the source case) or the direction it
// must change to. A transformation reads only the case (never its id or rule) and either applies or
// says why it does not. Phrases and cues: `metamorphic.data.ts`.
import type { Verdict } from '@aoc/contracts';
import { factsOf, states, type Fact } from '../../services/judge/src/rubric-judge/facts/facts';
import { JudgeCase, anchorAt, frozenAt } from './case.schema';
import { parseFeedbackCommand } from '@aoc/feedback';
import {
  afterAnchor, afterInstant, atOffset, beforeFrozen, comment, fill, freshId, humanAnswer, isSupport, justBefore, keepSentences, pick, retimed, rewriteProse, sentencesOf, shifted, withBodies, withComment,
} from './case-edit';
import {
  AI_CAUSE_LINE, AI_MECHANISM_LINE, ANAPHORIC_OPENER, CONFIRMS_AI, CONFIRMS_HUMAN, CAUSE_SENTENCE, FIRM_MECHANISM, MANUAL_SENTENCE, PROGRESS_REPLIES, REFUTES_AI, REFUTES_HUMAN, SHARE_PERCENT, SYMPTOM_SENTENCES, SYNONYMS, TARGET_SENTENCES,
  TICKET_VALUE, TIME_SHIFTS_MS, UNIT_REWRITES, USUAL_VALUE, UTC_OFFSETS_MINUTES,
} from './metamorphic.data';

/** `keep`: the variant's verdict equals the source's; `change`: it is one of `to`. */
export type Relation = { kind: 'keep' } | { kind: 'change'; to: readonly Verdict[]; says: string };
export type Outcome = { applies: true; case: JudgeCase } | { applies: false; why: string };

export interface Transformation {
  id: string;
  what: string;
  relation: Relation;
  apply(c: JudgeCase): Outcome;
}

const KEEP: Relation = { kind: 'keep' };
const NOT_HUMAN_BETTER: Relation = { kind: 'change', to: ['ai_better', 'equivalent', 'different_but_valid', 'not_compared'], says: 'no longer human_better' };
const TO_HUMAN_BETTER: Relation = { kind: 'change', to: ['human_better'], says: 'becomes human_better' };
const TO_AI_BETTER: Relation = { kind: 'change', to: ['ai_better'], says: 'becomes ai_better' };

const at = (iso: string) => Date.parse(iso);
const no = (why: string): Outcome => ({ applies: false, why });
const variant = (c: JudgeCase | null, why: string): Outcome => (c ? { applies: true, case: c } : no(why));
const answerIds = (c: JudgeCase) => c.expected.humanCommentIds;
const lastAnswerAt = (c: JudgeCase) => Math.max(...humanAnswer(c).map((m) => at(m.createdAt)));

// --- keep: paraphrase, units, reordering, incidental number, progress reply, internal note -------

// One regex with a group per entry: the group that matched names the replacement.
const SYNONYM = new RegExp(`(?<![\\w.\`-])(?:${SYNONYMS.map(([from]) => `(${from.replace(/ /g, '\\s+')})`).join('|')})(?![\\w(\`-])`, 'gi');
const sameCase = (word: string, to: string) => (/^[A-Z][a-z]/.test(word) ? to[0].toUpperCase() + to.slice(1) : to);
// An all-capitals word is a keyword (`KILL 4412`), not prose.
const swapWords = (prose: string) =>
  prose.replace(SYNONYM, (w: string, ...groups: unknown[]) => {
    const i = groups.findIndex((g) => typeof g === 'string');
    return (w.length > 1 && w === w.toUpperCase()) || i < 0 ? w : sameCase(w, SYNONYMS[i][1]);
  });

const paraphrase: Transformation = {
  id: 'paraphrase',
  what: 'synonym swaps in the human answer (data table), outside code and literals',
  relation: KEEP,
  apply: (c) => variant(withBodies(c, answerIds(c), (b) => rewriteProse(b, swapWords)), 'no synonym in the human answer'),
};

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const formatNumber = (v: number) => String(Number(v.toPrecision(4)));
function convertUnits(prose: string): string {
  let out = prose;
  for (const u of UNIT_REWRITES) {
    const re = new RegExp(String.raw`(?<![\w.,+/-])${NUMBER}(\s?)${u.from}(?![\w/])`, 'g');
    out = out.replace(re, (m, n: string, space: string) => {
      const v = Number(n);
      return v >= u.min && v <= u.max ? `${formatNumber(v * u.factor)}${space || ' '}${u.to}` : m;
    });
    if (out !== prose) return out; // one rewrite per text: a converted value is not converted back
  }
  return out.replace(SHARE_PERCENT, (_m, n: string) => formatNumber(Number(n) / 100));
}

const units: Transformation = {
  id: 'units',
  what: 'ms<->s, MiB<->GiB (GB/MB, TiB), a share in % written as a fraction ("95% of" -> "0.95 of") in the human answer',
  relation: KEEP,
  apply: (c) => variant(withBodies(c, answerIds(c), (b) => rewriteProse(b, convertUnits)), 'no convertible unit in the human answer'),
};

/** The last sentence first, when no sentence refers back to another. */
function rotate(body: string): string {
  const s = sentencesOf(body);
  if (!s || s.length < 2 || s.some((x) => ANAPHORIC_OPENER.test(x))) return body;
  return [s[s.length - 1], ...s.slice(0, -1)].join(' ');
}

const reorderSentences: Transformation = {
  id: 'reorder_sentences',
  what: 'the last sentence of a human reply first, where no sentence refers back',
  relation: KEEP,
  apply: (c) => variant(withBodies(c, answerIds(c), rotate), 'every reply has one sentence, lines, code, or a sentence that refers back'),
};

/** Each run of bullet lines reversed: observations are a set, not a sequence. */
const reverseBullets = (text: string) => text.replace(/(?:^- .*(?:\n|$)){2,}/gm, (block) => {
  const lines = block.replace(/\n$/, '').split('\n');
  return `${lines.reverse().join('\n')}${block.endsWith('\n') ? '\n' : ''}`;
});

const reorderEvidence: Transformation = {
  id: 'reorder_evidence',
  what: "the published answer's bullet lists (data shown, observations) in reverse order",
  relation: KEEP,
  apply: (c) => {
    const answer = { ...c.answer, customerReplyMarkdown: reverseBullets(c.answer.customerReplyMarkdown), internalHandoffMarkdown: reverseBullets(c.answer.internalHandoffMarkdown) };
    const same = answer.customerReplyMarkdown === c.answer.customerReplyMarkdown && answer.internalHandoffMarkdown === c.answer.internalHandoffMarkdown;
    return variant(same ? null : { ...c, answer }, 'no bullet list of two or more lines');
  },
};

/** A sentence quoting a ticket value incidentally: the usual level as a target, else the first value with a unit as a restated symptom. */
function incidentalSentence(c: JudgeCase): string | null {
  const text = `${c.ticket.title}. ${c.ticket.description}`;
  const usual = USUAL_VALUE.exec(text);
  const raw = usual ? (usual[1] ?? usual[2]) : TICKET_VALUE.exec(text)?.[1];
  if (!raw) return null;
  const value = raw.replace(/^(?:~|about |around )/, '').trim();
  return fill(pick(usual ? TARGET_SENTENCES : SYMPTOM_SENTENCES, c.id), { value });
}

const incidentalNumber: Transformation = {
  id: 'incidental_number',
  what: 'the human answer ends quoting a ticket value: the usual level as a target ("it should go back to about <value>"), else as the reported symptom',
  relation: KEEP,
  apply: (c) => {
    const sentence = incidentalSentence(c);
    const last = answerIds(c).at(-1);
    if (!sentence || !last) return no(sentence ? 'no human answer' : 'no value with a unit in the ticket');
    return variant(withBodies(c, [last], (b) => `${b}${b.includes('\n') ? '\n\n' : ' '}${sentence}`), 'no human answer');
  },
};

const progressReply: Transformation = {
  id: 'progress_reply',
  what: 'a progress-only Support reply right after the anchor',
  relation: KEEP,
  apply: (c) => {
    const createdAt = afterAnchor(c);
    if (!createdAt) return no('no free instant after the anchor');
    return { applies: true, case: withComment(c, comment(c, { id: freshId(c, 'progress'), authorRole: 'support', visibility: 'public', createdAt, body: pick(PROGRESS_REPLIES, c.id) })) };
  },
};

/** Moves the reply's own-work sentences to an internal note just before it: later information either way. */
function manualToNote(c: JudgeCase, id: string): JudgeCase | null {
  const reply = c.timeline.find((m) => m.id === id);
  const s = reply ? sentencesOf(reply.body) : null;
  if (!reply || !s) return null;
  const manual = s.filter((x) => MANUAL_SENTENCE.test(x));
  const createdAt = justBefore(c, at(reply.createdAt));
  if (manual.length === 0 || manual.length === s.length || !createdAt) return null;
  const moved = withBodies(c, [id], () => s.filter((x) => !manual.includes(x)).join(' '));
  return moved && withComment(moved, comment(c, { id: freshId(c, 'note'), authorRole: reply.authorRole, visibility: 'internal', createdAt, body: manual.join(' ') }));
}

const manualToInternal: Transformation = {
  id: 'manual_to_internal',
  what: "the human reply's own-work sentence ('we checked ...') moved to an internal note before it",
  relation: KEEP,
  apply: (c) => {
    for (const id of answerIds(c)) {
      const moved = manualToNote(c, id);
      if (moved) return { applies: true, case: moved };
    }
    return no('no reply with an own-work sentence beside others');
  },
};

// --- change: decisive fact removed, later fact moved before the cutoff, customer refutes a side --

const answerFacts = (c: JudgeCase) => factsOf(`${c.answer.customerReplyMarkdown}\n${c.answer.internalHandoffMarkdown}`);

const removeDecisiveFact: Transformation = {
  id: 'remove_decisive_fact',
  what: 'every human sentence with a fact the published answer does not state removed (labelled human_better, read mode)',
  relation: NOT_HUMAN_BETTER,
  apply: (c) => {
    if (c.expected.verdict !== 'human_better' || c.previous) return no('not a read-mode human_better case');
    const ai = answerFacts(c);
    const own = (unit: string) => factsOf(unit).every((f) => states(ai, f));
    return variant(withBodies(c, answerIds(c), (b) => keepSentences(b, own) || pick(PROGRESS_REPLIES, c.id)), 'the human answer states nothing beyond the published answer');
  },
};

/** Later information the human answer had: customer comments and internal notes between the anchor and the answer. */
function laterInformation(c: JudgeCase) {
  const anchor = at(anchorAt(c.answer));
  const end = lastAnswerAt(c);
  const window = c.timeline.filter((m) => at(m.createdAt) > anchor && at(m.createdAt) < end && !m.body.trim().startsWith('/ao'));
  return { customer: window.filter((m) => m.authorRole === 'customer'), notes: window.filter((m) => isSupport(m) && m.visibility === 'internal') };
}

/** Customer comments re-dated before the frozen input (the AI sees them); internal notes' findings written into the ticket. */
function beforeCutoff(c: JudgeCase): JudgeCase | null {
  const { customer, notes } = laterInformation(c);
  if (customer.length + notes.length === 0) return null;
  let out: JudgeCase = { ...c, ticket: { ...c.ticket, description: [c.ticket.description, ...notes.map((n) => n.body)].join('\n\n') } };
  out = { ...out, timeline: out.timeline.filter((m) => !notes.includes(m) && !customer.includes(m)) };
  for (const m of customer) {
    const createdAt = beforeFrozen(out);
    if (!createdAt) return null;
    out = withComment(out, comment(out, { ...m, createdAt }));
  }
  return out;
}

const factBeforeCutoff: Transformation = {
  id: 'fact_before_cutoff',
  what: 'the later information the human used moved before the cutoff into the ticket (labelled different_but_valid)',
  relation: TO_HUMAN_BETTER,
  apply: (c) => (c.expected.verdict !== 'different_but_valid' || c.previous ? no('not a read-mode different_but_valid case') : variant(beforeCutoff(c), 'no later customer comment or internal note before the answer')),
};

const terms = (text: string): Fact[] => factsOf(text).filter((f) => f.kind === 'term' && !f.negated);

/** The two causes a customer can choose between: the human's cause sentence and the published cause line, with no term in common. */
function causes(c: JudgeCase): { human: string; ai: string } | null {
  const human = humanAnswer(c).flatMap((m) => sentencesOf(m.body) ?? []).find((s) => CAUSE_SENTENCE.test(s));
  const ai = (AI_CAUSE_LINE.exec(c.answer.customerReplyMarkdown) ?? AI_MECHANISM_LINE.exec(c.answer.internalHandoffMarkdown))?.[1]?.trim();
  if (!human || !ai) return null;
  const [h, a] = [terms(human), terms(ai)];
  return h.length > 0 && a.length > 0 && !h.some((f) => states(a, f)) ? { human, ai } : null;
}

/** Labels that say the two answers differ: a customer can then side with one (an equivalent pair has one cause). */
const SIDES_DIFFER: readonly Verdict[] = ['ai_better', 'human_better', 'different_but_valid'];

/** A customer comment after everything else siding with one answer and quoting its cause. */
function customerSides(c: JudgeCase, template: string, side: 'human' | 'ai', firmOnly: boolean): Outcome {
  if (c.previous || answerIds(c).length === 0) return no('no read-mode human answer');
  if (!SIDES_DIFFER.includes(c.expected.verdict)) return no('the label does not say the answers differ');
  if (c.timeline.some((m) => m.authorRole === 'customer' && at(m.createdAt) > lastAnswerAt(c))) return no('the customer already followed up');
  if (firmOnly && !FIRM_MECHANISM.test(c.answer.internalHandoffMarkdown)) return no('the published answer names no firm cause');
  const both = causes(c);
  const createdAt = afterInstant(c, Math.max(...c.timeline.map((m) => at(m.createdAt))));
  if (!both || !createdAt) return no(both ? 'no free instant' : 'no two different causes (cause sentence and cause line with no shared term)');
  const body = fill(template, { cause: side === 'human' ? both.human : both.ai });
  return { applies: true, case: withComment(c, comment(c, { id: freshId(c, 'cust'), authorRole: 'customer', visibility: 'public', createdAt, body })) };
}

/** A customer follow-up siding with one answer: the template quotes that side's cause; only a firm cause can be refuted or outdone. */
const customerSiding = (id: string, what: string, side: 'human' | 'ai', template: string, firmOnly: boolean): Transformation => ({
  id,
  what,
  relation: side === 'human' ? TO_HUMAN_BETTER : TO_AI_BETTER,
  apply: (c) => customerSides(c, template, side, firmOnly),
});

const CUSTOMER_SIDING: readonly Transformation[] = [
  customerSiding('customer_refutes_ai', "a later customer comment: the published answer's firm cause did not help, the human's cause was the real one", 'human', REFUTES_AI, true),
  customerSiding('customer_refutes_human', "a later customer comment: the human's cause was not it, the published answer's cause was", 'ai', REFUTES_HUMAN, false),
  customerSiding('customer_confirms_ai', "a later customer comment: the published answer's cause was right and acting on it fixed the problem", 'ai', CONFIRMS_AI, false),
  customerSiding('customer_confirms_human', "a later customer comment: the human's cause was right and the fix worked (the published answer stood by another)", 'human', CONFIRMS_HUMAN, true),
];

// --- reply time: when each reply was written, relative to the cutoff and to the other comments ---
// The reply-time rule (`reply_time_anchor`; the Judge's planner and `provenance.ts`) reads only the
// order of instants: which replies come after the anchor, and whether a fact reached Support after
// the cutoff and before the reply that first states it. Moving every instant together, or writing
// them at another UTC offset, changes no order: the verdict stays. Freezing the answer's input after
// the human's replies leaves no reply after the anchor: nothing to compare.

const shiftTimes: Transformation = {
  id: 'shift_times',
  what: 'every instant of the case (ticket, answer, cutoff, comments) moved by the same amount; texts untouched',
  relation: KEEP,
  apply: (c) => {
    const ms = pick(TIME_SHIFTS_MS, c.id);
    return { applies: true, case: retimed(c, (t) => shifted(t, ms)) };
  },
};

const utcOffset: Transformation = {
  id: 'utc_offset',
  what: 'every instant of the case written at another UTC offset (+08:00, -05:00, +05:30, ...): the same instants',
  relation: KEEP,
  apply: (c) => {
    const minutes = pick(UTC_OFFSETS_MINUTES, c.id);
    return { applies: true, case: retimed(c, (t) => atOffset(t, minutes)) };
  },
};

const publicReplies = (c: JudgeCase) => c.timeline.filter((m) => isSupport(m) && m.visibility === 'public' && parseFeedbackCommand(m.body) === null);

/** The answer's input frozen (and its anchor set) just after the last public Support reply: the AI saw the human answer. */
function answerAfterReplies(c: JudgeCase): JudgeCase | null {
  const last = Math.max(...publicReplies(c).map((m) => at(m.createdAt)));
  const t = afterInstant(c, last);
  if (!t) return null;
  const notBefore = (instant: string) => (at(instant) < at(t) ? t : instant);
  const answer = c.answer.cutoff !== null
    ? { ...c.answer, cutoff: t, requestedAt: notBefore(c.answer.requestedAt), publishedAt: notBefore(c.answer.publishedAt) }
    : { ...c.answer, requestedAt: t, publishedAt: t };
  const frozen = at(frozenAt(answer));
  const timeline = c.timeline.map((m) => ({ ...m, visibleToAi: m.visibility === 'public' && at(m.createdAt) <= frozen }));
  return { ...c, answer, timeline, expected: { ...c.expected, humanCommentIds: [] } };
}

const answerAfterHumanReply: Transformation = {
  id: 'answer_after_human_reply',
  what: "the published answer's cutoff (a live run: its request and publication) moved after the last public Support reply (no previous version)",
  relation: { kind: 'change', to: ['not_compared'], says: 'becomes not_compared (the AI saw the human answer)' },
  apply: (c) => {
    if (c.previous) return no('a write-mode version: moving it past the replies rebinds its feedback');
    if (!publicReplies(c).some((m) => at(m.createdAt) > at(anchorAt(c.answer)))) return no('no public Support reply after the anchor');
    return variant(answerAfterReplies(c), 'no free instant after the last Support reply');
  },
};

export const TRANSFORMATIONS: readonly Transformation[] = [
  paraphrase, units, reorderSentences, reorderEvidence, incidentalNumber, progressReply, manualToInternal,
  removeDecisiveFact, factBeforeCutoff, ...CUSTOMER_SIDING,
  shiftTimes, utcOffset, answerAfterHumanReply,
];

export interface Variant {
  transform: string;
  relation: Relation;
  source: JudgeCase;
  case: JudgeCase;
}

/** The label a variant carries: the source's for a keep relation, else the first verdict of the stated direction. */
function relabel(c: JudgeCase, relation: Relation): JudgeCase {
  return relation.kind === 'keep' ? c : { ...c, expected: { ...c.expected, verdict: relation.to[0] } };
}

/**
 * Every variant of every case. A variant must still be a valid case (schema and timeline
 * consistency): a transformation that breaks one is a bench bug, so it throws.
 */
export function variantsOf(cases: readonly JudgeCase[], transformations: readonly Transformation[] = TRANSFORMATIONS): { variants: Variant[]; skipped: Map<string, number> } {
  const variants: Variant[] = [];
  const skipped = new Map<string, number>();
  for (const source of cases) {
    for (const t of transformations) {
      const out = t.apply(source);
      if (!out.applies) {
        skipped.set(t.id, (skipped.get(t.id) ?? 0) + 1);
        continue;
      }
      const parsed = JudgeCase.safeParse(relabel(out.case, t.relation));
      if (!parsed.success) throw new Error(`metamorphic ${t.id} on ${source.id} made an invalid case: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      variants.push({ transform: t.id, relation: t.relation, source, case: parsed.data });
    }
  }
  return { variants, skipped };
}
