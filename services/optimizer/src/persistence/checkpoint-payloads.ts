import { CandidateDiff } from '@aoc/versioned-data';
import { z } from 'zod';
import type { BaselineDecision, Reproducibility } from '../focus/baseline';
import type { CriterionTransition, GateResult } from '../focus/candidate-gate';
import { CLOSING_OUTCOMES, REF_GROUPS, type RefSets } from '../focus/focus-machine';
import type { JudgedReplay } from '../run-focus/replay-judging';

/**
 * The payload of each checkpoint kind, as a schema: a checkpoint is parsed by its kind when it is
 * read (and checked when it is written), so the code reads typed payloads instead of casting JSON.
 * Fields added later are optional, so checkpoints written by an earlier build still read.
 */

const Status = z.enum(['met', 'gap', 'inconclusive', 'not_applicable']);
const Role = z.enum(['target', 'control']);

const JudgedReplaySchema: z.ZodType<JudgedReplay> = z.object({
  caseId: z.string(),
  role: Role,
  executed: z.boolean(),
  judgement: z.object({ caseId: z.string(), results: z.array(z.object({ criterionId: z.string(), status: Status, reason: z.string() })) }),
  leadingFamily: z.string().nullable(),
  queriedFamilies: z.array(z.string()).optional(),
  error: z.string().nullable(),
});
const Cases = z.object({ cases: z.array(JudgedReplaySchema) });

const Source = z.object({
  runId: z.string(),
  answerFingerprint: z.string(),
  cutoff: z.string().nullable(),
  ticketDigest: z.string(),
  questionDigest: z.string().nullable().optional(),
  referenceComments: z.array(z.object({ id: z.string(), bodyDigest: z.string() })).readonly(),
});

/** The candidate as selected. Criteria are kept as stored (the ontology may have moved on since), not re-validated. */
const SelectionPayload = z.object({
  groupingDigest: z.string(),
  signature: z.string(),
  problemStatement: z.string(),
  blockingCriterionId: z.string(),
  criteria: z.array(z.looseObject({ id: z.string(), kind: z.string() })),
  targets: z.array(z.object({ ticketKey: z.string(), ref: z.string(), source: Source, statement: z.string() })),
  controls: z.array(z.object({ ticketKey: z.string(), source: Source })),
});

const Decision: z.ZodType<BaselineDecision> = z.object({
  outcome: z.enum(['focus_created', 'focus_candidate_rejected']),
  reason: z.string(),
  finding: z.enum(['gaps_found', 'criteria_met', 'inconclusive']),
  confirmedGapTargets: z.array(z.string()),
});

const ReproducibilitySchema: z.ZodType<Reproducibility> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('active'), confirmedGaps: z.number() }),
  z.object({ kind: z.literal('auto_close'), confirmedGaps: z.number(), met: z.number() }),
  z.object({ kind: z.literal('inconclusive'), confirmedGaps: z.number() }),
]);

const Transition = z.enum(['regression', 'preexisting_unresolved', 'fixed', 'inconclusive', 'preserved', 'not_applicable']);
const Row: z.ZodType<CriterionTransition> = z.object({ caseId: z.string(), role: Role, criterionId: z.string(), blocking: z.boolean(), baseline: Status, challenger: Status, transition: Transition });
const Gate: z.ZodType<GateResult> = z.object({
  status: z.enum(['accepted', 'rejected', 'inconclusive']),
  reason: z.string(),
  table: z.array(Row),
  followUpGaps: z.array(Row),
  regressions: z.array(Row),
  controlRegressions: z.array(Row),
  fixedTargets: z.array(z.string()),
});

const Review = z.object({
  /** `not_run`: the attempt ended before a challenger (inconclusive, or held by an enqueued candidate). */
  gate: z.enum(['accepted', 'rejected', 'inconclusive', 'not_run']),
  transitions: z.array(z.object({ caseId: z.string(), criterionId: z.string(), transition: Transition })),
  mechanismNotExercised: z.boolean(),
  feedback: z.string(),
  /** The digest of the enqueued candidate that held this attempt back after its case refresh (not a reviewed attempt). */
  heldBy: z.string().optional(),
});

const Proposal = z.object({ diff: CandidateDiff.nullable(), digest: z.string().nullable(), rejected: z.array(z.object({ code: z.string(), detail: z.string() })) });

const Refs: z.ZodType<RefSets> = z.partialRecord(z.enum(REF_GROUPS), z.array(z.string()));
const ClosingOutcome = z.enum(CLOSING_OUTCOMES);
/** Before the machine a close kept the refs it released and suppressed; read as the groups the table names. */
const LegacyClose = z.object({ outcome: ClosingOutcome, reason: z.string(), released: z.array(z.string()), suppressed: z.array(z.string()) }).transform(({ outcome, reason, released, suppressed }) => ({
  outcome,
  reason,
  refs: outcome === 'focus_source_changed' ? { changed: suppressed, unchanged: released } : { unmet: [] },
}));
const Close = z.union([z.object({ outcome: ClosingOutcome, reason: z.string(), refs: Refs }), LegacyClose]);

const Baseline = z.object({ cases: z.array(JudgedReplaySchema), decision: Decision, droppedControls: z.array(z.string()) });
const CaseRefresh = z.object({ cases: z.array(JudgedReplaySchema), reproducibility: ReproducibilitySchema });
const CaseBlocked = z.object({ caseIds: z.array(z.string()), reason: z.string() });
const Enqueued = z.object({ commit: z.object({ branch: z.string(), sha: z.string() }).nullable() });

/** Each checkpoint kind's payload. */
interface Payloads {
  selection: z.output<typeof SelectionPayload>;
  baseline: z.output<typeof Baseline>;
  case_refresh: z.output<typeof CaseRefresh>;
  case_blocked: z.output<typeof CaseBlocked>;
  proposal: z.output<typeof Proposal>;
  challenger: z.output<typeof Cases>;
  gate: GateResult;
  attempt_review: z.output<typeof Review>;
  candidate_enqueued: z.output<typeof Enqueued>;
  focus_close: z.output<typeof Close>;
}
export type CheckpointKind = keyof Payloads;
export type CheckpointPayload<K extends CheckpointKind> = Payloads[K];

/** Kind -> payload schema: the one list of checkpoint kinds. */
export const CHECKPOINT_PAYLOADS: { readonly [K in CheckpointKind]: z.ZodType<Payloads[K]> } = {
  selection: SelectionPayload,
  baseline: Baseline,
  case_refresh: CaseRefresh,
  case_blocked: CaseBlocked,
  proposal: Proposal,
  challenger: Cases,
  gate: Gate,
  attempt_review: Review,
  candidate_enqueued: Enqueued,
  focus_close: Close,
};
export const CHECKPOINT_KINDS = Object.keys(CHECKPOINT_PAYLOADS).filter((k): k is CheckpointKind => k in CHECKPOINT_PAYLOADS);

/** Parses a payload by its kind; a payload that does not fit says which kind and field. */
export function parsePayload<K extends CheckpointKind>(kind: K, raw: unknown): CheckpointPayload<K> {
  const parsed = CHECKPOINT_PAYLOADS[kind].safeParse(raw);
  if (!parsed.success) throw new Error(`checkpoint ${kind}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
