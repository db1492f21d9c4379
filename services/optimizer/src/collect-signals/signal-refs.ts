import { createHash } from 'node:crypto';
import type { EvaluationJudgedV1, RunExecutionRecordedV1 } from '@aoc/contracts';
import type { FeedbackBinding } from '@aoc/feedback';
import { firstFamilyInText } from '@aoc/metric-ontology';

/**
 * Problem signals with stable refs. One signal per AI gap, per key difference, per explicit
 * `/ao wrong|revise` bound to that exact answer version, and per runtime degradation (stage +
 * provider + failure codes; degraded or failed is the coverage, not part of the identity). A ref
 * is a digest of its identity, so the same problem seen again (a redelivery, a re-judged revision
 * naming the same gap) is the same ref, and a Focus consumes refs one by one.
 */

export type SignalKind = 'ai_gap' | 'key_difference' | 'explicit_feedback' | 'runtime';

/** The answer version and inputs a signal was observed on; a Focus re-checks them before it starts. */
export interface SignalSource {
  runId: string;
  answerFingerprint: string;
  cutoff: string | null;
  /** sha256 of the conversation the analysis saw (see `analysedDigest`). */
  ticketDigest: string;
  /** sha256 of the title and description when the signal was seen; null (or absent, on older refs) when no timeline carried it. */
  questionDigest?: string | null;
  /** The human comments the signal was judged against, with their body digests. */
  referenceComments: readonly { id: string; bodyDigest: string }[];
}

export interface ProblemSignalRef {
  ref: string;
  kind: SignalKind;
  ticketKey: string;
  source: SignalSource;
  /** What is wrong, in the judge's or reviewer's words (bounded). */
  statement: string;
  /** Grouping key of the selector: problems of one signature are one narrow problem. */
  signature: string;
  /** Runtime signals: how much of the evidence was lost (coverage, not identity). */
  coverage: 'degraded' | 'failed' | null;
  evaluationId: string | null;
  feedbackCommentId: string | null;
}

const sha = (parts: readonly unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
const norm = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
const bounded = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500);

/** Where a statement turns to the human side ("...; the customer confirmed X", "the human answer states X"). */
const HUMAN_SIDE = /\b(?:customer confirmed|customer says|human answer (?:states|names|says|gives)|the ticket says|it was|instead)\b/gi;

/** The signature of a quality signal whose wording names no metric family (the built-in selector refuses it). */
export const UNCLASSIFIED = 'quality:unclassified';

/**
 * The narrow problem a quality statement is about: the first metric family it names (the
 * ontology's words, so "lock waits" and "blocked sessions" group together), or `UNCLASSIFIED`,
 * which the built-in selector refuses as too broad.
 */
export function qualitySignature(statement: string): string {
  // The side that was right: what the human (or the customer) said, not what the AI named.
  const marker = [...statement.matchAll(HUMAN_SIDE)].at(-1);
  const humanSide = marker?.index !== undefined ? statement.slice(marker.index + marker[0].length) : statement;
  const family = firstFamilyInText(humanSide) ?? firstFamilyInText(statement);
  return family ? `quality:${family}` : UNCLASSIFIED;
}

/** Runtime identity: stage, providers and the sorted failure codes. */
export function runtimeSignature(stage: string, providers: readonly string[], codes: readonly string[]): string {
  return `runtime:${stage}:${[...providers].sort().join('+') || 'none'}:${[...new Set(codes)].sort().join('+') || 'no-code'}`;
}

function ref(kind: SignalKind, ticketKey: string, source: SignalSource, identity: string): string {
  return `sig_${sha([kind, ticketKey, source.runId, source.answerFingerprint, identity]).slice(0, 32)}`;
}

function make(kind: SignalKind, ticketKey: string, source: SignalSource, statement: string, signature: string, extra: Partial<ProblemSignalRef> = {}): ProblemSignalRef {
  const identity = kind === 'runtime' ? signature : norm(statement);
  return { ref: ref(kind, ticketKey, source, identity), kind, ticketKey, source, statement: bounded(statement), signature, coverage: null, evaluationId: null, feedbackCommentId: null, ...extra };
}

/** One signal per AI gap and per key difference of a judged answer version that lost to the human answer. */
export function evaluationSignals(evaluation: EvaluationJudgedV1, source: Omit<SignalSource, 'referenceComments'>): ProblemSignalRef[] {
  if (evaluation.verdict !== 'human_better') return [];
  const full: SignalSource = { ...source, referenceComments: evaluation.referenceComments.map((c) => ({ id: c.id, bodyDigest: c.bodyDigest })) };
  const extra = { evaluationId: evaluation.evaluationId };
  const seen = new Set<string>();
  const out: ProblemSignalRef[] = [];
  for (const [kind, statements] of [
    ['ai_gap', evaluation.aiGaps],
    ['key_difference', evaluation.keyDifferences],
  ] as const) {
    for (const statement of statements) {
      const s = make(kind, evaluation.ticketKey, full, statement, qualitySignature(statement), extra);
      if (!seen.has(s.ref)) out.push(s);
      seen.add(s.ref);
    }
  }
  return out;
}

/** One signal per explicit `/ao wrong` or `/ao revise` bound to this exact answer version. */
export function feedbackSignals(ticketKey: string, bindings: readonly FeedbackBinding[], source: SignalSource): ProblemSignalRef[] {
  return bindings
    .filter((b) => (b.action === 'wrong' || b.action === 'revise') && b.runId === source.runId && b.answerFingerprint === source.answerFingerprint)
    .map((b) => {
      const statement = b.reason.trim() || `/ao ${b.action} without a reason`;
      // The comment is the identity: an edited reason is the same signal with newer words.
      const s = make('explicit_feedback', ticketKey, source, `comment:${b.commentId}`, qualitySignature(statement), { feedbackCommentId: b.commentId });
      return { ...s, statement: bounded(`/ao ${b.action}: ${statement}`) };
    });
}

/** One signal per degraded or failed evidence acquisition, identified by stage, providers and codes. */
export function runtimeSignals(record: RunExecutionRecordedV1, source: SignalSource): ProblemSignalRef[] {
  const out: ProblemSignalRef[] = [];
  const status = record.evidenceAcquisition.status;
  if (status === 'degraded' || status === 'failed') {
    const signature = runtimeSignature('evidence', record.evidenceAcquisition.providers, record.failureCodes);
    out.push(make('runtime', record.ticketKey, source, `evidence ${status} on ${record.evidenceAcquisition.providers.join(', ') || 'no provider'}: ${record.failureCodes.join(', ') || 'no failure code'}`, signature, { coverage: status }));
  }
  if (record.responseGeneration.status !== 'succeeded') {
    const signature = runtimeSignature('response', [record.responseGeneration.engine], [record.responseGeneration.status]);
    out.push(make('runtime', record.ticketKey, source, `response generation ${record.responseGeneration.status} (${record.responseGeneration.engine})`, signature, { coverage: 'failed' }));
  }
  return out;
}

/**
 * sha256 of the ticket conversation as the analysis saw it: the public comments written up to
 * the answer's cutoff (its publication time without one). An edit or deletion of one of them
 * changes it; later replies do not. `unknown` when no timeline was seen yet (never equal to a
 * current digest, so such a source never passes a re-check).
 */
export function analysedDigest(comments: readonly { id: string; body: string; visibility: string; createdAt: string }[] | null, anchor: string): string {
  if (comments === null) return 'unknown';
  const until = Date.parse(anchor);
  return sha(
    comments
      .filter((c) => c.visibility === 'public' && Date.parse(c.createdAt) <= until)
      .map((c) => [c.id, c.body])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** Reference comments by id with the digest of their current body. */
export function bodyDigest(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}
