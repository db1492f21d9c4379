import { createHash } from 'node:crypto';
import { IsoDateTime, TicketKey } from '@aoc/contracts';
import { readPointer, RepoPath, sha256, tunableOf, type CandidateDiff, type DataManifest } from '@aoc/versioned-data';
import { z } from 'zod';
import type { SignalKind } from '../collect-signals/signal-refs';
import type { GateResult } from '../focus/candidate-gate';
import { PROBLEM_STATUSES } from '../focus/problem-status-machine';
import type { FocusCandidate } from '../select-focus/focus-selector';
import { dataVersionWith, DATA_VERSION } from './data-version';

/**
 * The optimisation record: versioned JSON metadata written once per accepted candidate. It names
 * the problems (problem-signal refs) the candidate was gated on, where it applies, the data diff
 * (per edit the tunable surface, path, pointer and the value before and after; per file the
 * digests before and after; the unified diff of the tunable data), the gate table and the data
 * version it produces. Parsed with `OptimizationRecord` wherever it is read (the store, an exported
 * file); a field that does not fit is named in the error.
 */

export const RECORD_FORMAT = 'auto-oncall-optimization-record-v1';
export const RECORD_SCHEMA_VERSION = 1;

const DataVersion = z.string().regex(DATA_VERSION, 'must be data:<32 hex>, the digest of the declared data files');
const Digest = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 hex digest');
const Ref = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be a problem-signal ref');
const Status = z.enum(['met', 'gap', 'inconclusive', 'not_applicable']);
/** A JSON value (what a tunable held or holds), bounded. */
const JsonValue = z.unknown().refine((v) => v !== undefined && JSON.stringify(v).length <= 8000, 'must be a JSON value of at most 8000 characters');

const Problem = z
  .object({
    ref: Ref,
    ticketKey: TicketKey,
    /** `ticket_command`: a single-ticket job started by a `/ticket` comment (no signal ref of its own). */
    kind: z.enum(['ai_gap', 'key_difference', 'explicit_feedback', 'runtime', 'ticket_command'] satisfies ProblemKind[]),
    signature: z.string().min(1).max(200),
    statement: z.string().max(500),
    /** The answer version the problem was seen on, and its cutoff: the case a verification replays. */
    runId: z.string().min(1).max(128),
    answerFingerprint: z.string().min(1).max(128),
    cutoff: IsoDateTime.nullable(),
  })
  .strict();

const Applicability = z
  .object({
    /** Human-readable scope: audit context, never a matcher (selection matches refs, tickets and signatures). */
    summary: z.string().min(1).max(600),
    signature: z.string().min(1).max(200),
    /** Owners of the changed files (the stage the change acts on). */
    stages: z.array(z.string().min(1).max(100)).min(1).max(10),
    tickets: z.array(TicketKey).min(1).max(5),
  })
  .strict();

const Change = z
  .object({
    path: RepoPath,
    pointer: z.string().regex(/^(\/[A-Za-z0-9_-]+)+$/, 'must be a JSON pointer of plain keys'),
    /** The tunable the edit moves: `<kind> <pointer>` from the manifest. */
    surface: z.string().min(1).max(200),
    before: JsonValue,
    after: JsonValue,
    because: z.string().min(1).max(300),
  })
  .strict();

const FileChange = z.object({ path: RepoPath, owner: z.string().min(1).max(100), beforeDigest: Digest, afterDigest: Digest }).strict();

const DataDiff = z
  .object({
    baseVersion: DataVersion,
    /** The data version the candidate produces: answers carrying it mean the change is deployed. */
    dataVersion: DataVersion,
    candidateDigest: z.string().regex(/^cand:[0-9a-f]{32}$/, 'must be cand:<32 hex>'),
    changes: z.array(Change).min(1).max(10),
    files: z.array(FileChange).min(1).max(10),
    /** Unified diff of the changed data files (tunable data only). */
    diff: z.string().max(20000),
  })
  .strict()
  .refine((d) => d.dataVersion !== d.baseVersion, { path: ['dataVersion'], message: 'must differ from baseVersion (a candidate changes the data)' });

const GateRow = z
  .object({
    caseId: z.string().min(1).max(128),
    role: z.enum(['target', 'control']),
    criterionId: z.string().min(1).max(64),
    blocking: z.boolean(),
    baseline: Status,
    challenger: Status,
    transition: z.enum(['regression', 'preexisting_unresolved', 'fixed', 'inconclusive', 'preserved', 'not_applicable']),
  })
  .strict();

const Gate = z
  .object({
    status: z.literal('accepted'),
    reason: z.string().max(1000),
    rows: z.array(GateRow).min(1).max(100),
    regressions: z.number().int().min(0),
    controlRegressions: z.number().int().min(0),
    followUpGaps: z.number().int().min(0),
  })
  .strict();

/** What a problem of a record is about: a signal kind, or a `/ticket` command. */
export type ProblemKind = SignalKind | 'ticket_command';

const RecordShape = z.object({
  format: z.literal(RECORD_FORMAT),
  schemaVersion: z.literal(RECORD_SCHEMA_VERSION),
  recordId: z.string().regex(/^opt-[0-9a-f]{16}$/, 'must be opt-<16 hex>'),
  createdAt: IsoDateTime,
  /** Which loop wrote it; absent on records written before the single-ticket lane (the Focus loop). */
  lane: z.enum(['focus', 'single_ticket']).optional(),
  /** The Focus and attempt; on a single-ticket record `focusId` is the job id (`stj-<24 hex>`: no Focus exists) and `attempt` the proposal number. */
  focus: z
    .object({
      focusId: z.string().regex(/^(focus-[0-9a-f]{12}(-\d+)?|stj-[0-9a-f]{24})$/, 'must be focus-<12 hex>[-n] or a single-ticket job id stj-<24 hex>'),
      focusDigest: z.string().min(1).max(100),
      attempt: z.number().int().min(1),
      proposer: z.string().min(1).max(100),
    })
    .strict(),
  problemStatement: z.string().min(1).max(1000),
  problems: z.array(Problem).min(1).max(5),
  applicability: Applicability,
  criteria: z
    .object({
      blockingCriterionId: z.string().min(1).max(64),
      /** As the Focus stated them (re-parsed by the verification; the ontology may have moved on since). */
      list: z.array(z.looseObject({ id: z.string().min(1).max(64), kind: z.string().min(1).max(64) })).min(1).max(10),
    })
    .strict(),
  data: DataDiff,
  gate: Gate,
  commit: z.object({ branch: z.string().min(1).max(200), sha: z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-hex commit') }).strict().nullable(),
});

type RecordFields = z.output<typeof RecordShape>;

/** The record id: a digest of the Focus, attempt, base version and candidate, so writing the same record again is a no-op. */
export function recordIdOf(focusId: string, attempt: number, baseVersion: string, candidateDigest: string): string {
  return `opt-${createHash('sha256').update(JSON.stringify([focusId, attempt, baseVersion, candidateDigest])).digest('hex').slice(0, 16)}`;
}

/** What the fields of a record must say about each other. */
function consistent(r: RecordFields, ctx: z.RefinementCtx): void {
  const expected = recordIdOf(r.focus.focusId, r.focus.attempt, r.data.baseVersion, r.data.candidateDigest);
  if (r.recordId !== expected) ctx.addIssue({ code: 'custom', path: ['recordId'], message: `must be the digest of focus, attempt, base version and candidate (${expected})` });
  if ((r.lane === 'single_ticket') !== r.focus.focusId.startsWith('stj-')) ctx.addIssue({ code: 'custom', path: ['focus', 'focusId'], message: 'must be a job id exactly when lane is single_ticket' });
  const refs = r.problems.map((p) => p.ref);
  if (new Set(refs).size !== refs.length) ctx.addIssue({ code: 'custom', path: ['problems'], message: 'must name each ref once' });
  if (!r.criteria.list.some((c) => c.id === r.criteria.blockingCriterionId)) ctx.addIssue({ code: 'custom', path: ['criteria', 'blockingCriterionId'], message: 'must be one of criteria.list' });
  r.problems.forEach((p, i) => {
    const row = r.gate.rows.find((g) => g.caseId === p.ticketKey && g.role === 'target' && g.criterionId === r.criteria.blockingCriterionId);
    if (!row) ctx.addIssue({ code: 'custom', path: ['problems', i, 'ticketKey'], message: `has no target row of the blocking criterion in gate.rows` });
    else if (row.challenger !== 'met') ctx.addIssue({ code: 'custom', path: ['gate', 'rows'], message: `the blocking criterion must be met on ${p.ticketKey} in an accepted gate` });
  });
}

export const OptimizationRecord = RecordShape.strict().superRefine(consistent);
export type OptimizationRecord = z.output<typeof OptimizationRecord>;

/** The evidence a verification kept for one problem. */
export const VerificationEvidence = z
  .object({
    at: IsoDateTime,
    /** The data the case was replayed on (the deployed version). */
    dataVersion: DataVersion,
    /** `replay`: replayed by the verification; `case_refresh`: a Focus refresh on that same data already replayed it. */
    source: z.enum(['replay', 'case_refresh', 'none']),
    caseId: z.string().max(128).nullable(),
    executed: z.boolean(),
    blocking: Status.nullable(),
    leadingFamily: z.string().max(64).nullable(),
    detail: z.string().max(600),
  })
  .strict();
export type VerificationEvidence = z.output<typeof VerificationEvidence>;

/** One problem's status as the store keeps it (and an exported file shows it). */
export const ProblemStatusEntry = z
  .object({
    ref: Ref,
    status: z.enum(PROBLEM_STATUSES),
    reason: z.string().max(1000),
    recordedAt: IsoDateTime,
    deployedAt: IsoDateTime.nullable(),
    decidedAt: IsoDateTime.nullable(),
    verification: VerificationEvidence.nullable(),
  })
  .strict();
export type ProblemStatusEntry = z.output<typeof ProblemStatusEntry>;

/** An exported record: the record and its problems' statuses at export time. */
export const RecordDocument = RecordShape.extend({ statuses: z.array(ProblemStatusEntry).min(1).max(5) })
  .strict()
  .superRefine((d, ctx) => {
    consistent(d, ctx);
    const refs = new Set(d.problems.map((p) => p.ref));
    d.statuses.forEach((s, i) => {
      if (!refs.has(s.ref)) ctx.addIssue({ code: 'custom', path: ['statuses', i, 'ref'], message: 'must be one of problems[].ref' });
    });
  });
export type RecordDocument = z.output<typeof RecordDocument>;

/** A record (or exported document) that does not fit its schema; the message names every bad field. */
export class InvalidRecordError extends Error {
  constructor(
    readonly source: string,
    readonly fields: readonly string[],
    detail: string,
  ) {
    super(`${source}: ${detail}`);
    this.name = 'InvalidRecordError';
  }
}

function parseWith<T>(schema: z.ZodType<T>, raw: unknown, source: string): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 8).map((i) => ({ field: i.path.join('.') || '(record)', message: i.message }));
  throw new InvalidRecordError(
    source,
    issues.map((i) => i.field),
    issues.map((i) => `${i.field}: ${i.message}`).join('; '),
  );
}

/** Parses a record; a record that does not fit says which field. */
export const parseRecord = (raw: unknown, source = 'optimization record'): OptimizationRecord => parseWith(OptimizationRecord, raw, source);

/** Parses record JSON text (not JSON at all is refused as such). */
export function parseRecordJson(text: string, source = 'optimization record'): OptimizationRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InvalidRecordError(source, ['(record)'], `(record): not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseRecord(raw, source);
}

export interface RecordInput {
  focus: { focusId: string; focusDigest: string; candidate: FocusCandidate };
  attempt: number;
  proposer: string;
  baseVersion: string;
  candidateDigest: string;
  diff: CandidateDiff;
  /** The changed files' texts before (as this process reads them) and after. */
  before: ReadonlyMap<string, string>;
  after: ReadonlyMap<string, string>;
  manifest: DataManifest;
  read: (path: string) => string;
  unifiedDiff: string;
  gate: GateResult;
  commit: { branch: string; sha: string } | null;
  /** Kind of each target ref, as the signal store has it. */
  kinds: ReadonlyMap<string, ProblemKind>;
  at: Date;
  /** Set by the single-ticket lane (its `focus.focusId` is the job id). */
  lane?: 'single_ticket';
}

/** The record of an accepted candidate: its problems are the targets the gate judged (blocked targets were not). */
export function buildRecord(i: RecordInput): OptimizationRecord {
  const c = i.focus.candidate;
  const gated = new Set(i.gate.table.filter((r) => r.role === 'target').map((r) => r.caseId));
  const targets = c.targets.filter((t) => gated.has(t.ticketKey));
  const fileOf = (path: string) => i.manifest.files.find((f) => f.path === path);
  const owners = [...new Set(i.diff.edits.map((e) => fileOf(e.path)?.owner ?? e.path))];
  const tunable = (path: string, pointer: string) => tunableOf(fileOf(path)?.tunables ?? [], pointer);
  const record = {
    format: RECORD_FORMAT,
    schemaVersion: RECORD_SCHEMA_VERSION,
    recordId: recordIdOf(i.focus.focusId, i.attempt, i.baseVersion, i.candidateDigest),
    createdAt: i.at.toISOString(),
    ...(i.lane ? { lane: i.lane } : {}),
    focus: { focusId: i.focus.focusId, focusDigest: i.focus.focusDigest, attempt: i.attempt, proposer: i.proposer },
    problemStatement: c.problemStatement,
    problems: targets.map((t) => ({ ref: t.ref, ticketKey: t.ticketKey, kind: i.kinds.get(t.ref) ?? 'ai_gap', signature: c.signature, statement: t.statement.slice(0, 500), runId: t.source.runId, answerFingerprint: t.source.answerFingerprint, cutoff: t.source.cutoff })),
    applicability: {
      summary: `Answers whose problem is ${c.signature}: ${owners.join('; ')} (${[...new Set(i.diff.edits.map((e) => e.path))].join(', ')}); gated on ${targets.length} target case(s) at their cutoffs.`.slice(0, 600),
      signature: c.signature,
      stages: owners,
      tickets: targets.map((t) => t.ticketKey),
    },
    criteria: { blockingCriterionId: c.blockingCriterionId, list: c.criteria },
    data: {
      baseVersion: i.baseVersion,
      dataVersion: dataVersionWith(i.manifest, i.read, i.after),
      candidateDigest: i.candidateDigest,
      changes: i.diff.edits.map((e) => {
        const t = tunable(e.path, e.pointer);
        return { path: e.path, pointer: e.pointer, surface: t ? `${t.kind} ${t.pointer}` : 'undeclared', before: readPointer(JSON.parse(i.before.get(e.path) ?? 'null'), e.pointer) ?? null, after: e.value, because: e.because };
      }),
      files: [...i.after].map(([path, text]) => ({ path, owner: fileOf(path)?.owner ?? 'undeclared', beforeDigest: sha256(i.before.get(path) ?? ''), afterDigest: sha256(text) })),
      diff: i.unifiedDiff,
    },
    gate: {
      status: 'accepted',
      reason: i.gate.reason.slice(0, 1000),
      rows: i.gate.table.slice(0, 100),
      regressions: i.gate.regressions.length,
      controlRegressions: i.gate.controlRegressions.length,
      followUpGaps: i.gate.followUpGaps.length,
    },
    commit: i.commit,
  };
  // Built records are checked like read ones: a build that does not fit fails before it is stored.
  return parseRecord(record, `optimization record ${record.recordId}`);
}

const FENCE = '```';

/** The file name of an exported record (`docs/opts/YYYY-MM-DD-<recordId>.md`). */
export const recordFileName = (r: Pick<OptimizationRecord, 'createdAt' | 'recordId'>) => `${r.createdAt.slice(0, 10)}-${r.recordId}.md`;

/** An exported record: a readable summary and exactly one `auto-oncall-optimization-record-v1` JSON block (the only part a reader parses). */
export function recordMarkdown(doc: RecordDocument): string {
  const status = new Map(doc.statuses.map((s) => [s.ref, s]));
  const lines = [
    `# Optimisation record ${doc.recordId}`,
    '',
    doc.problemStatement,
    '',
    `- Focus: ${doc.focus.focusId}, attempt ${doc.focus.attempt} (${doc.focus.proposer})`,
    `- Applicability: ${doc.applicability.summary}`,
    `- Data: ${doc.data.baseVersion} -> ${doc.data.dataVersion} (${doc.data.candidateDigest})`,
    `- Commit: ${doc.commit ? `${doc.commit.branch} ${doc.commit.sha}` : 'none'}`,
    '',
    '| Problem | Ticket | Status | Reason |',
    '|---|---|---|---|',
    ...doc.problems.map((p) => `| \`${p.ref}\` | ${p.ticketKey} | ${status.get(p.ref)?.status ?? 'unknown'} | ${(status.get(p.ref)?.reason ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`),
    '',
    '| Case | Role | Criterion | Baseline | Challenger | Transition |',
    '|---|---|---|---|---|---|',
    ...doc.gate.rows.map((r) => `| ${r.caseId} | ${r.role} | ${r.criterionId}${r.blocking ? ' (blocking)' : ''} | ${r.baseline} | ${r.challenger} | ${r.transition} |`),
    '',
    ...doc.data.changes.map((c) => `- \`${c.path}\` \`${c.pointer}\` (${c.surface}): ${c.because}`),
    '',
    `${FENCE}diff`,
    doc.data.diff,
    FENCE,
    '',
    `${FENCE}json ${RECORD_FORMAT}`,
    JSON.stringify(doc, null, 2),
    FENCE,
    '',
  ];
  return lines.join('\n');
}

/** Reads an exported record document given as bare JSON (a record with its statuses). */
export function parseRecordDocumentJson(text: string, source = 'optimization record file'): RecordDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InvalidRecordError(source, ['(record)'], `(record): not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseWith(RecordDocument, raw, source);
}

/** Reads an exported record file: its one metadata block, parsed and checked. */
export function parseRecordMarkdown(text: string, source = 'optimization record file'): RecordDocument {
  const blocks = [...text.matchAll(new RegExp(`^${FENCE}json ${RECORD_FORMAT}\\n([\\s\\S]*?)\\n${FENCE}$`, 'gm'))];
  if (blocks.length !== 1) throw new InvalidRecordError(source, ['(file)'], `(file): must hold exactly one \`${FENCE}json ${RECORD_FORMAT}\` block, found ${blocks.length}`);
  let raw: unknown;
  try {
    raw = JSON.parse(blocks[0][1]);
  } catch (error) {
    throw new InvalidRecordError(source, ['(record)'], `(record): not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseWith(RecordDocument, raw, source);
}
