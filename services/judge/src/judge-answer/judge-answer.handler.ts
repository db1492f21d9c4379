import { createHash } from 'node:crypto';
import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvaluationJudgedV1 } from '@aoc/contracts';
import { AocError } from '@aoc/errors';
import { isTrustedFeedbackSource, parseFeedbackCommand, qualityProjection, type FeedbackBinding } from '@aoc/feedback';
import { DATA_SOURCE, LOGGER } from '@aoc/service-host';
import { pipelineMetrics, type Logger } from '@aoc/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import type { ModelPort } from '@aoc/agent-runtime';
import type { DataSource, EntityManager } from 'typeorm';
import { RecordInputsHandler } from '../record-inputs/record-inputs.handler';
import { AnswerEntity, EvaluationEntity, EvaluationFailureEntity, FeedbackBindingEntity, FeedbackCommentEntity, JudgeDisagreementEntity } from '../persistence/judge.entities';
import { judgeWithEngines, type Judged } from './builtin-cross-check';
import { loadTicketState } from '../persistence/ticket-state.repository';
import type { ComparisonOutcome } from './answer-comparison';
import { JUDGE_MODEL } from './judge-model.provider';
import { planJudgments, type JudgmentPlan } from './judge-plan';
import { applyEvent, type JudgeEvent, type TicketState } from './ticket-state';

/** What a new revision must differ in: verdict, abstention code and the selected human comments (ids and bodies). */
export function outcomeDigestOf(outcome: ComparisonOutcome): string {
  const f = outcome.fields;
  const basis = JSON.stringify([f.verdict, f.abstentionCode, f.referenceComments.map((c) => `${c.id}:${c.bodyDigest}`)]);
  return createHash('sha256').update(basis).digest('hex');
}

/** Write mode: the version the judged answer replaced, as the evaluation row keeps it. */
function previousVersionOf(plan: JudgmentPlan, state: TicketState): { previousRunId: string | null; previousFingerprint: string | null; previousFeedbackId: string | null } {
  const previous = plan.input.previousAnswer;
  if (!previous) return { previousRunId: null, previousFingerprint: null, previousFeedbackId: null };
  return {
    previousRunId: previous.runId,
    previousFingerprint: state.answers.find((a) => a.runId === previous.runId)?.answerFingerprint ?? null,
    previousFeedbackId: previous.latestFeedback?.commentId ?? null,
  };
}

/** A transient model failure is left to the bus's retries this many times, then parked. */
export const PARK_TRANSIENT_AFTER_ATTEMPTS = 3;
/** Failures that the same input would reproduce: not retried until the input changes. */
const BLOCKING_CODES: ReadonlySet<string> = new Set(['MODEL.REFUSED', 'MODEL.TRUNCATED', 'MODEL.OUTPUT_INVALID']);

type PreparedEntry = { inputDigest: string; judged: Judged } | { inputDigest: string; error: unknown };

/** Model results computed before the handler's transaction (see `prepare`). */
export class PreparedJudgments {
  constructor(readonly entries: ReadonlyMap<string, PreparedEntry>) {}
}

const ticketKeyOf = (event: JudgeEvent): string =>
  event.kind === 'ticket' ? event.request.ticketKey : event.kind === 'answer' ? event.run.ticketKey : event.timeline.ticketKey;

/**
 * Judge: keeps the frozen tickets, published answer versions, latest timelines and /ao feedback
 * of each ticket, and judges an answer version against the human answer once one exists (or a
 * trusted `/ao human` asks for it). It never sees execution state.
 *
 * The model is asked in `prepare`, before the bus opens the handler's transaction, so no
 * database connection waits on it; the handler recomputes the plan from the stored state and
 * reuses a prepared result only when its input digest matches (else it asks again).
 */
@Injectable()
export class JudgeAnswerHandler {
  constructor(
    private readonly inputs: RecordInputsHandler,
    @Inject(JUDGE_MODEL) private readonly model: ModelPort,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async prepare(event: JudgeEvent): Promise<PreparedJudgments> {
    const state = applyEvent(await loadTicketState(this.dataSource.manager, ticketKeyOf(event)), event);
    const entries = new Map<string, PreparedEntry>();
    for (const plan of planJudgments(state).plans) {
      try {
        entries.set(plan.evaluationId, { inputDigest: plan.inputDigest, judged: await judgeWithEngines(this.model, plan) });
      } catch (error) {
        entries.set(plan.evaluationId, { inputDigest: plan.inputDigest, error });
      }
    }
    return new PreparedJudgments(entries);
  }

  async handle(event: JudgeEvent, ctx: HandlerContext): Promise<void> {
    const ticketKey = ticketKeyOf(event);
    // One ticket's request, timeline and answer may arrive at once on different partitions: each
    // transaction alone sees only its own row and none plans the evaluation. In turn per ticket,
    // the last to commit sees all three (found by the chaos suite after a restart with a backlog).
    await ctx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`judge.ticket:${ticketKey}`]);
    await this.inputs.record(event, ctx.manager);
    await this.judgeTicket(ticketKey, ctx);
  }

  /** Binds feedback, judges what is due, publishes each new evaluation once, refreshes projections. */
  async judgeTicket(ticketKey: string, ctx: HandlerContext): Promise<void> {
    const state = await loadTicketState(ctx.manager, ticketKey);
    const { bindings, plans, feedbackByRun } = planJudgments(state);
    await this.saveFeedback(ctx.manager, state, bindings);
    const prepared = ctx.prepared instanceof PreparedJudgments ? ctx.prepared : null;
    const latest = new Map<string, { evaluationId: string; verdict: EvaluationJudgedV1['verdict'] }>();
    for (const plan of plans) {
      let judged: Judged;
      try {
        judged = await this.outcomeOf(plan, prepared);
      } catch (error) {
        if (!(error instanceof AocError)) throw error;
        if (error.retryable && ctx.attempt < PARK_TRANSIENT_AFTER_ATTEMPTS) throw error;
        await this.recordFailure(ctx.manager, plan, error);
        continue;
      }
      const { outcome, disagreement } = judged;
      const projection = qualityProjection(plan.feedback, outcome.fields.verdict);
      const judgedAt = new Date();
      const previous = state.latestPublished.get(plan.answer.runId) ?? null;
      const outcomeDigest = outcomeDigestOf(outcome);
      // The same human answer and verdict as the latest published revision: kept, not published again.
      const unchanged = previous !== null && previous.outcomeDigest === outcomeDigest;
      const revision = unchanged ? previous.revision : (previous?.revision ?? 0) + 1;
      const payload: EvaluationJudgedV1 = {
        evaluationId: plan.evaluationId,
        revision,
        supersedesEvaluationId: unchanged ? null : (previous?.evaluationId ?? null),
        runId: plan.answer.runId,
        ticketKey,
        answerFingerprint: plan.answer.answerFingerprint,
        judgedAt: judgedAt.toISOString(),
        ...outcome.fields,
      };
      // The primary key makes a second publication of the same evaluation impossible.
      await ctx.manager.insert(EvaluationEntity, {
        evaluationId: plan.evaluationId,
        runId: plan.answer.runId,
        ticketKey,
        answerFingerprint: plan.answer.answerFingerprint,
        verdict: payload.verdict,
        verdictReason: payload.verdictReason,
        judgeEngine: payload.judgeEngine,
        abstentionCode: payload.abstentionCode,
        judgeTrigger: plan.trigger,
        revision,
        published: !unchanged,
        outcomeDigest,
        ...previousVersionOf(plan, state),
        ordersAgree: outcome.ordersAgree,
        rawResults: outcome.results,
        payload,
        qualityProjection: projection,
        judgedAt,
      });
      if (unchanged) {
        this.logger.info('human answer unchanged: no new evaluation', { runId: plan.answer.runId, evaluationId: plan.evaluationId, revision });
        continue;
      }
      if (disagreement) {
        await ctx.manager.insert(JudgeDisagreementEntity, { evaluationId: plan.evaluationId, runId: plan.answer.runId, ticketKey, ...disagreement, recordedAt: judgedAt });
        this.logger.info('model and built-in judge disagree', { evaluationId: plan.evaluationId, modelVerdict: disagreement.modelVerdict, builtinVerdict: disagreement.builtinVerdict });
      }
      await ctx.publish(Topics.evaluationJudged, payload, { idempotencyKey: plan.evaluationId });
      pipelineMetrics.evaluationsJudged.add({ verdict: payload.verdict });
      latest.set(plan.answer.runId, { evaluationId: plan.evaluationId, verdict: payload.verdict });
      this.logger.info('answer judged', { runId: plan.answer.runId, evaluationId: plan.evaluationId, verdict: payload.verdict, ordersAgree: outcome.ordersAgree, engine: payload.judgeEngine });
    }
    // Precedence is recorded, not overridden: the verdict stays the Judge's; the projection beside it follows feedback.
    for (const answer of state.answers) {
      const judged = latest.get(answer.runId);
      const verdict = judged?.verdict ?? state.latestVerdicts.get(answer.runId) ?? null;
      const projection = qualityProjection(feedbackByRun.get(answer.runId) ?? [], verdict);
      await ctx.manager.update(
        AnswerEntity,
        { runId: answer.runId },
        {
          qualityScore: projection.score,
          qualitySource: projection.source,
          judgeReviewRequested: projection.judgeReviewRequested,
          ...(judged ? { latestEvaluationId: judged.evaluationId, latestVerdict: judged.verdict } : {}),
        },
      );
    }
  }

  private async outcomeOf(plan: JudgmentPlan, prepared: PreparedJudgments | null): Promise<Judged> {
    const entry = prepared?.entries.get(plan.evaluationId);
    if (entry && entry.inputDigest === plan.inputDigest) {
      if ('error' in entry) throw entry.error;
      return entry.judged;
    }
    return judgeWithEngines(this.model, plan);
  }

  /** Stores new and edited bindings and every trusted /ao comment version (raw feedback is never lost). */
  private async saveFeedback(manager: EntityManager, state: TicketState, bindings: FeedbackBinding[]): Promise<void> {
    const before = new Map(state.bindings.map((b) => [b.commentId, b]));
    const now = new Date();
    for (const b of bindings) {
      const old = before.get(b.commentId);
      if (!old) {
        await manager.insert(FeedbackBindingEntity, { ...b, ticketKey: state.ticketKey, boundAt: now });
      } else if (old.action !== b.action || old.reason !== b.reason || old.commentUpdatedAt !== b.commentUpdatedAt) {
        await manager.update(FeedbackBindingEntity, { ticketKey: state.ticketKey, commentId: b.commentId }, { action: b.action, reason: b.reason, commentUpdatedAt: b.commentUpdatedAt });
      }
    }
    const raw = (state.timeline?.comments ?? []).filter((c) => isTrustedFeedbackSource(c) && parseFeedbackCommand(c.body) !== null);
    if (raw.length === 0) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(FeedbackCommentEntity)
      .values(
        raw.map((c) => ({
          commentId: c.id,
          commentUpdatedAt: c.updatedAt,
          ticketKey: state.ticketKey,
          commentCreatedAt: c.createdAt,
          authorRole: c.authorRole,
          visibility: c.visibility,
          body: c.body,
          recordedAt: now,
        })),
      )
      .orIgnore()
      .execute();
  }

  private async recordFailure(manager: EntityManager, plan: JudgmentPlan, error: AocError): Promise<void> {
    const existing = await manager.findOne(EvaluationFailureEntity, { where: { evaluationId: plan.evaluationId } });
    await manager.save(EvaluationFailureEntity, {
      evaluationId: plan.evaluationId,
      runId: plan.answer.runId,
      ticketKey: plan.answer.ticketKey,
      code: error.code,
      message: error.message.slice(0, 2000),
      retryable: error.retryable,
      blocking: BLOCKING_CODES.has(error.code),
      failures: (existing?.failures ?? 0) + 1,
      failedAt: new Date(),
    });
    this.logger.warn('answer could not be judged', { runId: plan.answer.runId, evaluationId: plan.evaluationId, code: error.code, retryable: error.retryable });
  }
}
