import { SINGLE_TENANT, type RunExecutionRecordedV1, type TimelineCommentV1 } from '@aoc/contracts';
import type { FeedbackBinding } from '@aoc/feedback';
import type { EntityManager } from 'typeorm';
import type { ProblemSignalRef, SignalSource } from '../collect-signals/signal-refs';
import { isoOrNull, jsonValue } from './row-values';

/**
 * The optimizer's one data-access layer for what it observes: answer versions, the latest
 * timeline per ticket with its /ao bindings, and problem-signal refs with their consumption.
 * Every write is idempotent (keyed upserts; an older timeline revision changes nothing).
 */

export interface AnswerVersionRow {
  runId: string;
  ticketKey: string;
  /** The tenant run.published named (null: no configured tenant owns the ticket; absent: the single tenant). */
  tenant?: string | null;
  answerFingerprint: string;
  cutoff: string | null;
  publishedAt: string;
  decision: string;
  requestedContext: string[];
  /** Ontology family of the answer's leading mechanism (null: none named). */
  leadingFamily: string | null;
  /** The ticket's question digest at publication (its latest timeline then); null when none was known. */
  questionDigest?: string | null;
  /** The versioned data the run read (`data:<32 hex>`), when run.published carried it; null otherwise. */
  dataVersion?: string | null;
  /** The latest evaluation's verdict and AI gap count (null: not judged yet). */
  verdict?: string | null;
  aiGapCount?: number;
}

export interface TimelineRow {
  ticketKey: string;
  revision: number;
  comments: TimelineCommentV1[];
  bindings: FeedbackBinding[];
  /** sha256 of the title and description at this revision; null when the revision did not carry it. */
  questionDigest: string | null;
}

export type SignalState = 'open' | 'consumed' | 'suppressed';
export interface StoredSignal extends ProblemSignalRef {
  state: SignalState;
  focusId: string | null;
}


export async function saveAnswerVersion(m: EntityManager, v: AnswerVersionRow): Promise<void> {
  await m.query(
    `INSERT INTO "optimizer"."answer_versions" ("run_id", "ticket_key", "answer_fingerprint", "cutoff", "published_at", "decision", "requested_context", "leading_family", "question_digest", "tenant", "data_version")
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11) ON CONFLICT ("run_id") DO NOTHING`,
    [v.runId, v.ticketKey, v.answerFingerprint, v.cutoff, v.publishedAt, v.decision, JSON.stringify(v.requestedContext), v.leadingFamily, v.questionDigest ?? null, v.tenant === undefined ? SINGLE_TENANT : v.tenant, v.dataVersion ?? null],
  );
}

/** The verdict of an answer version, from its latest evaluation revision (older revisions change nothing); kept whether or not the version is known yet. */
export async function saveVerdict(m: EntityManager, runId: string, verdict: string, revision: number, aiGapCount: number): Promise<void> {
  await m.query(
    `INSERT INTO "optimizer"."verdicts" ("run_id", "verdict", "revision", "ai_gap_count") VALUES ($1, $2, $3, $4)
     ON CONFLICT ("run_id") DO UPDATE SET "verdict" = excluded."verdict", "revision" = excluded."revision", "ai_gap_count" = excluded."ai_gap_count" WHERE "verdicts"."revision" < excluded."revision"`,
    [runId, verdict, revision, aiGapCount],
  );
}

/** Every judged answer version, the selector's control candidates among them. */
export async function judgedVersions(m: EntityManager): Promise<AnswerVersionRow[]> {
  const rows: Record<string, unknown>[] = await m.query(
    `SELECT a.*, v."verdict", v."ai_gap_count" FROM "optimizer"."answer_versions" a JOIN "optimizer"."verdicts" v ON v."run_id" = a."run_id" ORDER BY a."ticket_key", a."published_at"`,
  );
  return rows.map(toVersion);
}

export async function answerVersionsOf(m: EntityManager, ticketKey: string): Promise<AnswerVersionRow[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."answer_versions" WHERE "ticket_key" = $1 ORDER BY "published_at", "run_id"`, [ticketKey]);
  return rows.map(toVersion);
}

function toVersion(r: Record<string, unknown>): AnswerVersionRow {
  return {
    runId: String(r['run_id']),
    ticketKey: String(r['ticket_key']),
    tenant: (r['tenant'] as string | null | undefined) ?? null,
    answerFingerprint: String(r['answer_fingerprint']),
    cutoff: isoOrNull(r['cutoff']),
    publishedAt: isoOrNull(r['published_at']) ?? '',
    decision: String(r['decision']),
    requestedContext: jsonValue<string[]>(r['requested_context']),
    leadingFamily: (r['leading_family'] as string | null) ?? null,
    questionDigest: (r['question_digest'] as string | null) ?? null,
    dataVersion: (r['data_version'] as string | null | undefined) ?? null,
    verdict: (r['verdict'] as string | null) ?? null,
    aiGapCount: Number(r['ai_gap_count'] ?? 0),
  };
}

export async function timelineOf(m: EntityManager, ticketKey: string): Promise<TimelineRow | null> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."ticket_timelines" WHERE "ticket_key" = $1`, [ticketKey]);
  const r = rows[0];
  return r ? { ticketKey, revision: Number(r['revision']), comments: jsonValue<TimelineCommentV1[]>(r['comments']), bindings: jsonValue<FeedbackBinding[]>(r['bindings']), questionDigest: (r['question_digest'] as string | null) ?? null } : null;
}

/**
 * Keeps the newest revision only; returns false when the given one is not newer than what is
 * stored. A revision without a question digest (an older router) keeps the stored one.
 */
export async function saveTimeline(m: EntityManager, t: TimelineRow, at: Date): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `INSERT INTO "optimizer"."ticket_timelines" ("ticket_key", "revision", "comments", "bindings", "observed_at", "question_digest") VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6)
     ON CONFLICT ("ticket_key") DO UPDATE SET "revision" = excluded."revision", "comments" = excluded."comments", "bindings" = excluded."bindings", "observed_at" = excluded."observed_at", "question_digest" = COALESCE(excluded."question_digest", "ticket_timelines"."question_digest")
     WHERE "ticket_timelines"."revision" < excluded."revision" RETURNING "ticket_key"`,
    [t.ticketKey, t.revision, JSON.stringify(t.comments), JSON.stringify(t.bindings), at, t.questionDigest],
  );
  return rows.length > 0;
}

/** Bindings change only through a newer timeline or a newly known answer version. */
export async function saveBindings(m: EntityManager, ticketKey: string, bindings: readonly FeedbackBinding[]): Promise<void> {
  await m.query(`UPDATE "optimizer"."ticket_timelines" SET "bindings" = $2::jsonb WHERE "ticket_key" = $1`, [ticketKey, JSON.stringify(bindings)]);
}

/** New refs are inserted open; a ref seen again keeps its state and gets the newer wording. */
export async function upsertSignals(m: EntityManager, refs: readonly ProblemSignalRef[], at: Date): Promise<void> {
  for (const s of refs) {
    await m.query(
      `INSERT INTO "optimizer"."signal_refs" ("ref", "ticket_key", "kind", "signature", "statement", "source", "coverage", "evaluation_id", "feedback_comment_id", "first_seen_at", "last_seen_at")
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $10)
       ON CONFLICT ("ref") DO UPDATE SET "statement" = excluded."statement", "signature" = excluded."signature", "evaluation_id" = coalesce(excluded."evaluation_id", "signal_refs"."evaluation_id"), "last_seen_at" = excluded."last_seen_at"`,
      [s.ref, s.ticketKey, s.kind, s.signature, s.statement, JSON.stringify(s.source), s.coverage, s.evaluationId, s.feedbackCommentId, at],
    );
  }
}

function toSignal(r: Record<string, unknown>): StoredSignal {
  return {
    ref: String(r['ref']),
    kind: String(r['kind']) as StoredSignal['kind'],
    ticketKey: String(r['ticket_key']),
    source: jsonValue<SignalSource>(r['source']),
    statement: String(r['statement']),
    signature: String(r['signature']),
    coverage: (r['coverage'] as StoredSignal['coverage']) ?? null,
    evaluationId: (r['evaluation_id'] as string | null) ?? null,
    feedbackCommentId: (r['feedback_comment_id'] as string | null) ?? null,
    state: String(r['state']) as SignalState,
    focusId: (r['focus_id'] as string | null) ?? null,
  };
}

/** `tenant`: only refs of that tenant's tickets (a ticket's tenant is its answer versions'). */
export async function signals(m: EntityManager, filter: { state?: SignalState; ticketKey?: string; tenant?: string } = {}): Promise<StoredSignal[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.state) where.push(`"state" = $${args.push(filter.state)}`);
  if (filter.ticketKey) where.push(`"ticket_key" = $${args.push(filter.ticketKey)}`);
  if (filter.tenant !== undefined) {
    where.push(`EXISTS (SELECT 1 FROM "optimizer"."answer_versions" v WHERE v."ticket_key" = "signal_refs"."ticket_key" AND v."tenant" = $${args.push(filter.tenant)})`);
  }
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."signal_refs" ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY "ref"`, args);
  return rows.map(toSignal);
}

/** The kind of each of these refs that is stored. */
export async function kindsOf(m: EntityManager, refs: readonly string[]): Promise<Map<string, StoredSignal['kind']>> {
  const rows: { ref: string; kind: string }[] = await m.query(`SELECT "ref", "kind" FROM "optimizer"."signal_refs" WHERE "ref" = ANY($1::text[])`, [[...refs]]);
  return new Map(rows.map((r) => [r.ref, r.kind as StoredSignal['kind']]));
}

/** Moves refs between states; `consumed` records the Focus, released refs are open again. */
export async function setSignalState(m: EntityManager, refs: readonly string[], state: SignalState, focusId: string | null = null): Promise<void> {
  if (refs.length === 0) return;
  await m.query(`UPDATE "optimizer"."signal_refs" SET "state" = $2, "focus_id" = $3 WHERE "ref" = ANY($1)`, [refs, state, state === 'open' ? null : focusId]);
}

/** Puts refs a Focus consumed back into selection (an ineffective optimisation); suppressed ones stay out, their source changed. */
export async function releaseConsumed(m: EntityManager, refs: readonly string[]): Promise<void> {
  if (refs.length === 0) return;
  await m.query(`UPDATE "optimizer"."signal_refs" SET "state" = 'open', "focus_id" = NULL WHERE "ref" = ANY($1) AND "state" = 'consumed'`, [refs]);
}

/** Fills the conversation and question digests of refs derived before any timeline of their ticket was seen. */
export async function fillUnknownDigests(m: EntityManager, ticketKey: string, runId: string, ticketDigest: string, questionDigest: string | null): Promise<void> {
  await m.query(
    `UPDATE "optimizer"."signal_refs" SET "source" = "source" || jsonb_build_object('ticketDigest', $3::text, 'questionDigest', $4::text) WHERE "ticket_key" = $1 AND "source"->>'runId' = $2 AND "source"->>'ticketDigest' = 'unknown'`,
    [ticketKey, runId, ticketDigest, questionDigest],
  );
}

/**
 * Serialises the handlers of one run within their transactions: run.published and
 * run.execution-recorded arrive together on different partitions, and without the lock an
 * execution could be parked just after the publication looked for it (and stay parked).
 */
export async function lockRun(m: EntityManager, runId: string): Promise<void> {
  await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`optimizer-run:${runId}`]);
}

/** Keeps an execution record whose answer version is not known yet (a redelivery keeps the first). */
export async function parkExecution(m: EntityManager, record: RunExecutionRecordedV1, at: Date): Promise<void> {
  await m.query(`INSERT INTO "optimizer"."parked_executions" ("run_id", "ticket_key", "record", "parked_at") VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT ("run_id") DO NOTHING`, [record.runId, record.ticketKey, JSON.stringify(record), at]);
}

/** Takes the parked execution record of a run, if any (deleted in the same transaction). */
export async function takeParkedExecution(m: EntityManager, runId: string): Promise<RunExecutionRecordedV1 | null> {
  // Through a CTE: TypeORM returns [rows, count] for a bare DELETE, plain rows for a SELECT.
  const rows: { record: unknown }[] = await m.query(`WITH taken AS (DELETE FROM "optimizer"."parked_executions" WHERE "run_id" = $1 RETURNING "record") SELECT "record" FROM taken`, [runId]);
  return rows[0] ? jsonValue<RunExecutionRecordedV1>(rows[0].record) : null;
}
