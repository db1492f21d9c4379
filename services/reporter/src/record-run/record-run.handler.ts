import type { HandlerContext } from '@aoc/bus';
import type { EvaluationJudgedV1, RunExecutionRecordedV1, RunPublishedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { payloadDigest } from '../payload-digest';
import { ProjectAnswersHandler } from '../project-answers/project-answers.handler';
import { isCountedRun, ReporterTables } from '../reporter.tables';

/**
 * Records what reports are computed from. Each topic may arrive in any order, more than once and
 * under new message ids, so every write is idempotent by the business key of the fact:
 * - a run is immutable per runId (first copy kept);
 * - an evaluation is immutable per evaluationId;
 * - the execution record of a run is replaced only by one that is newer (recordedAt, then
 *   payload digest), and its events are replaced with it, never appended.
 */
@Injectable()
export class RecordRunHandler {
  constructor(
    private readonly t: ReporterTables,
    private readonly answers: ProjectAnswersHandler,
  ) {}

  async onPublished(run: RunPublishedV1, ctx: Pick<HandlerContext, 'manager'>): Promise<void> {
    const m = ctx.manager;
    await this.answers.lockTicket(m, run.ticketKey);
    const inserted: unknown[] = await m.query(
      `INSERT INTO ${this.t.runs}
         ("run_id", "ticket_key", "trigger", "decision", "answer_fingerprint", "published_at", "customer_reply", "internal_handoff", "mode", "cutoff", "tenant")
       VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7, $8, $9, $10::timestamptz, $11)
       ON CONFLICT ("run_id") DO NOTHING
       RETURNING "run_id"`,
      [
        run.runId,
        run.ticketKey,
        run.trigger,
        run.decision,
        run.answerFingerprint,
        run.publishedAt,
        run.customerReplyMarkdown,
        run.internalHandoffMarkdown,
        run.mode,
        run.cutoff,
        run.tenant,
      ],
    );
    if (inserted.length === 0) return;
    // Provider facts recorded before the publication learn now whether their run is counted.
    if (isCountedRun(run)) {
      for (const table of [this.t.queryEvents, this.t.httpAttempts, this.t.systemEvents]) {
        await m.query(`UPDATE ${table} SET "counted" = true WHERE "run_id" = $1 AND NOT "counted"`, [run.runId]);
      }
    }
    await this.answers.refresh(m, run.ticketKey);
  }

  async onJudged(evaluation: EvaluationJudgedV1, ctx: Pick<HandlerContext, 'manager'>): Promise<void> {
    const m = ctx.manager;
    await this.answers.lockTicket(m, evaluation.ticketKey);
    // A model judge's cross-check (codes only); absent on messages without one and on older messages.
    const check = evaluation.crossCheck ?? null;
    const inserted: unknown[] = await m.query(
      `INSERT INTO ${this.t.evaluations}
         ("evaluation_id", "run_id", "verdict", "verdict_reason", "ai_gaps", "judged_at", "ticket_key", "answer_fingerprint", "judge_engine", "abstention_code", "revision", "target_comment_ids", "eligibility",
          "cross_check_engine", "cross_check_verdict", "cross_check_agrees", "cross_check_reason_code")
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::timestamptz, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16::boolean, $17)
       ON CONFLICT ("evaluation_id") DO NOTHING
       RETURNING "evaluation_id"`,
      [
        evaluation.evaluationId,
        evaluation.runId,
        evaluation.verdict,
        evaluation.verdictReason,
        JSON.stringify(evaluation.aiGaps),
        evaluation.judgedAt,
        evaluation.ticketKey,
        evaluation.answerFingerprint,
        evaluation.judgeEngine,
        evaluation.abstentionCode,
        evaluation.revision,
        JSON.stringify(evaluation.targetHumanCommentIds),
        evaluation.eligibility ?? null,
        check?.engine ?? null,
        check?.verdict ?? null,
        check?.agrees ?? null,
        check?.reasonCode ?? null,
      ],
    );
    if (inserted.length > 0) await this.answers.refresh(m, evaluation.ticketKey);
  }

  async onExecution(record: RunExecutionRecordedV1, ctx: Pick<HandlerContext, 'manager'>): Promise<void> {
    const m = ctx.manager;
    // Same lock as the publication: `counted` on the events is set by whichever of the two commits last.
    await this.answers.lockTicket(m, record.ticketKey);
    const won: unknown[] = await m.query(
      `INSERT INTO ${this.t.executions} AS x
         ("run_id", "ticket_key", "recorded_at", "evidence_status", "response_status", "response_engine", "evidence_capability", "evidence_providers", "failure_codes", "payload_digest", "tool_calls")
       VALUES ($1, $2, $3::timestamptz, $4, $5, $6, $7, $8::text[], $9::jsonb, $10, $11::jsonb)
       ON CONFLICT ("run_id") DO UPDATE SET
         "ticket_key" = excluded."ticket_key", "recorded_at" = excluded."recorded_at",
         "evidence_status" = excluded."evidence_status", "response_status" = excluded."response_status",
         "response_engine" = excluded."response_engine", "evidence_capability" = excluded."evidence_capability",
         "evidence_providers" = excluded."evidence_providers", "failure_codes" = excluded."failure_codes",
         "payload_digest" = excluded."payload_digest", "tool_calls" = excluded."tool_calls"
       WHERE x."recorded_at" IS NULL OR x."payload_digest" IS NULL
          OR (x."recorded_at", x."payload_digest") < (excluded."recorded_at", excluded."payload_digest")
       RETURNING "run_id"`,
      [
        record.runId,
        record.ticketKey,
        record.recordedAt,
        record.evidenceAcquisition.status,
        record.responseGeneration.status,
        record.responseGeneration.engine,
        record.evidenceAcquisition.capability,
        record.evidenceAcquisition.providers,
        JSON.stringify(record.failureCodes),
        payloadDigest(record),
        JSON.stringify(record.providerToolCalls),
      ],
    );
    // A duplicate or an older record changes nothing, events included.
    if (won.length === 0) return;
    await this.replaceEvents(m, record);
  }

  private async replaceEvents(m: EntityManager, record: RunExecutionRecordedV1): Promise<void> {
    const runs: { trigger: string; ticket_key: string }[] = await m.query(`SELECT "trigger", "ticket_key" FROM ${this.t.runs} WHERE "run_id" = $1`, [record.runId]);
    const counted = runs.length > 0 && isCountedRun({ trigger: runs[0].trigger, ticketKey: runs[0].ticket_key });
    const params = (events: unknown[]) => [record.runId, record.ticketKey, JSON.stringify(events), counted];
    for (const table of [this.t.queryEvents, this.t.httpAttempts, this.t.systemEvents]) await m.query(`DELETE FROM ${table} WHERE "run_id" = $1`, [record.runId]);
    if (record.providerQueryEvents.length > 0) {
      // One row per logical query (scenario, queryId): a query recorded again (a retry or a
      // corrected re-run) keeps only its latest outcome, so retries never enlarge the denominator.
      await m.query(
        `INSERT INTO ${this.t.queryEvents} ("run_id", "scenario_id", "query_id", "ticket_key", "provider", "outcome", "supplemental", "at", "day", "counted")
         SELECT DISTINCT ON (e.value->>'scenarioId', e.value->>'queryId')
                $1, e.value->>'scenarioId', e.value->>'queryId', $2, e.value->>'provider', e.value->>'outcome',
                (e.value->>'supplemental')::boolean, (e.value->>'at')::timestamptz,
                ((e.value->>'at')::timestamptz AT TIME ZONE 'Asia/Shanghai')::date, $4::boolean
           FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(value, ord)
          ORDER BY e.value->>'scenarioId', e.value->>'queryId', (e.value->>'at')::timestamptz DESC, e.ord DESC`,
        params(record.providerQueryEvents),
      );
    }
    if (record.providerHttpAttempts.length > 0) {
      await m.query(
        `INSERT INTO ${this.t.httpAttempts} ("run_id", "ordinal", "ticket_key", "scenario_id", "query_id", "provider", "status_class", "at", "day", "counted")
         SELECT $1, e.ord, $2, e.value->>'scenarioId', e.value->>'queryId', e.value->>'provider', e.value->>'statusClass',
                (e.value->>'at')::timestamptz, ((e.value->>'at')::timestamptz AT TIME ZONE 'Asia/Shanghai')::date, $4::boolean
           FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(value, ord)`,
        params(record.providerHttpAttempts),
      );
    }
    if (record.providerSystemEvents.length > 0) {
      await m.query(
        `INSERT INTO ${this.t.systemEvents}
           ("run_id", "ordinal", "ticket_key", "scenario_id", "query_id", "provider", "status_sequence", "result", "upstream_error", "request_id", "at", "day", "counted")
         SELECT $1, e.ord, $2, e.value->>'scenarioId', e.value->>'queryId', e.value->>'provider',
                ARRAY(SELECT s::integer FROM jsonb_array_elements_text(e.value->'statusSequence') WITH ORDINALITY AS q(s, n) ORDER BY q.n),
                e.value->>'result', e.value->>'upstreamError', e.value->>'requestId',
                (e.value->>'at')::timestamptz, ((e.value->>'at')::timestamptz AT TIME ZONE 'Asia/Shanghai')::date, $4::boolean
           FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(value, ord)`,
        params(record.providerSystemEvents),
      );
    }
  }
}
