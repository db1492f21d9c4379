import type { JudgeTimelineCommentV1 } from '../judge-answer/judge-input.schema';
import { factsOf, minusFacts, type Fact } from './facts/facts';
import { CLOSING, CORRECTION, HEDGE, PROGRESS, QUESTION, SUBSTANCE } from './judge-rules.data';

/**
 * The human answer: the ordered smallest set of Support replies that together answer the
 * original question. The question is the ticket and the comments the AI saw; replies that only
 * report progress or close the ticket answer nothing; a later restatement, correction or firm
 * answer replaces an earlier (or tentative) one; once an answer exists, replies after a customer's
 * new, different question belong to that question. Ties go to fewer, later replies.
 */
export type ReplyKind = 'substantive' | 'progress' | 'closing' | 'empty';

export interface HumanAnswer {
  ids: string[];
  /** Facts of the selected replies beyond the ticket, in order. */
  facts: Fact[];
  /** Why each offered reply was left out. */
  excluded: { id: string; why: string }[];
  /** Share of non-ASCII letters, or a Latin text with no English function words: another language. */
  foreignLanguage: boolean;
}

const byTime = (a: JudgeTimelineCommentV1, b: JudgeTimelineCommentV1) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id);

/** Text without code fences and table rules, so a code-only reply is read by its content. */
const prose = (body: string) => body.replace(/```[\s\S]*?```/g, ' ').replace(/^\s*\|?[-:| ]+\|?\s*$/gm, ' ');

export function isForeign(body: string): boolean {
  const letters = [...body.replace(/```[\s\S]*?```|`[^`]*`/g, '')].filter((c) => /\p{L}/u.test(c));
  if (letters.length < 12) return false;
  const nonAscii = letters.filter((c) => c.charCodeAt(0) > 0x24f).length;
  if (nonAscii / letters.length > 0.3) return true;
  const words = body.toLowerCase().match(/\p{L}+/gu) ?? [];
  const english = words.filter((w) => /^(?:the|is|are|was|and|of|to|we|you|your|on|in|it|this|that|for|with|has|have|be)$/.test(w)).length;
  const other = words.filter((w) => /^(?:el|la|los|las|que|es|und|der|die|das|ist|nicht|le|les|est|une|des|não|é|och|het|een|zijn)$/.test(w)).length;
  return words.length >= 8 && other > english;
}

export function classifyReply(body: string, ticketFacts: readonly Fact[]): ReplyKind {
  const text = prose(body).trim();
  const own = minusFacts(factsOf(body), ticketFacts);
  const words = text.split(/\s+/).filter(Boolean).length;
  if (words === 0 && own.length === 0) return 'empty';
  const substance = SUBSTANCE.test(text) && words >= 6;
  if (own.length === 0 && !substance) return CLOSING.test(text) ? 'closing' : PROGRESS.test(text) ? 'progress' : words < 12 ? 'closing' : 'empty';
  // A progress note may carry an identifier or time ("escalated at 10:20") without answering.
  if (!substance && own.every((f) => f.kind !== 'term') && (PROGRESS.test(text) || CLOSING.test(text))) return PROGRESS.test(text) ? 'progress' : 'closing';
  return 'substantive';
}

/** Customer comments after the anchor that ask a new question (facts beyond the original one). */
function laterQuestions(timeline: readonly JudgeTimelineCommentV1[], anchor: number, questionFacts: readonly Fact[]): JudgeTimelineCommentV1[] {
  return timeline.filter((c) => {
    if (c.authorRole !== 'customer' || c.visibleToAi || Date.parse(c.createdAt) <= anchor || !QUESTION.test(c.body)) return false;
    const fresh = minusFacts(factsOf(c.body), questionFacts).filter((f) => f.kind === 'term' || f.kind === 'identifier');
    return fresh.length > 0;
  });
}

export function selectHumanAnswer(
  replies: readonly JudgeTimelineCommentV1[],
  timeline: readonly JudgeTimelineCommentV1[],
  anchorIso: string,
  questionText: string,
): HumanAnswer {
  const ticketFacts = factsOf(questionText);
  const ordered = [...replies].sort(byTime);
  const excluded: HumanAnswer['excluded'] = [];
  const substantive: JudgeTimelineCommentV1[] = [];
  const questions = laterQuestions(timeline, Date.parse(anchorIso), ticketFacts);
  for (const reply of ordered) {
    const kind = classifyReply(reply.body, ticketFacts);
    if (kind !== 'substantive') {
      excluded.push({ id: reply.id, why: kind });
      continue;
    }
    // Once an answer exists, a customer's new question opens another thread: replies after it are
    // about that question, unless they correct the answer already given.
    const at = Date.parse(reply.createdAt);
    const newQuestion = questions.find((q) => Date.parse(q.createdAt) < at && substantive.some((s) => Date.parse(s.createdAt) < Date.parse(q.createdAt)));
    if (newQuestion && !CORRECTION.test(reply.body)) {
      excluded.push({ id: reply.id, why: `answers the later question in ${newQuestion.id}` });
      continue;
    }
    substantive.push(reply);
  }
  // Newest first: keep a reply when no later kept reply corrects or firmly replaces it and it adds facts.
  const kept: JudgeTimelineCommentV1[] = [];
  let covered: Fact[] = [];
  for (const reply of [...substantive].reverse()) {
    const own = minusFacts(factsOf(reply.body), ticketFacts);
    const supersededBy = kept.find((k) => CORRECTION.test(k.body) || (HEDGE.test(reply.body) && !HEDGE.test(k.body)));
    if (supersededBy) {
      excluded.push({ id: reply.id, why: `superseded by ${supersededBy.id}` });
      continue;
    }
    const adds = minusFacts(own, covered);
    if (kept.length > 0 && adds.length === 0) {
      excluded.push({ id: reply.id, why: 'restated by a later reply' });
      continue;
    }
    kept.push(reply);
    covered = [...covered, ...adds];
  }
  const ids = ordered.filter((r) => kept.includes(r)).map((r) => r.id);
  const facts = ordered.filter((r) => kept.includes(r)).flatMap((r) => minusFacts(factsOf(r.body), ticketFacts));
  const seen = new Set<string>();
  return {
    ids,
    facts: facts.filter((f) => (seen.has(f.key) ? false : (seen.add(f.key), true))),
    excluded,
    foreignLanguage: kept.length > 0 && kept.every((r) => isForeign(r.body)),
  };
}
