import type { HandlerContext } from '@aoc/bus';
import type { EvaluationJudgedV1, RunExecutionRecordedV1, RunPublishedV1, TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { bindFeedback } from '@aoc/feedback';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { leadingFamilyOf } from '../judge-criteria/criterion-judge';
import { observeDataVersion } from '../persistence/record-store';
import { DATA_VERSION } from '../records/data-version';
import { answerVersionsOf, fillUnknownDigests, lockRun, parkExecution, saveAnswerVersion, saveBindings, saveTimeline, saveVerdict, takeParkedExecution, timelineOf, upsertSignals, type AnswerVersionRow, type TimelineRow } from '../persistence/signal-store';
import { enqueueTicketCommands } from '../single-ticket/single-ticket-lane';
import { analysedDigest, bodyDigest, evaluationSignals, feedbackSignals, runtimeSignals, type SignalSource } from './signal-refs';

/** run.published as the optimizer reads it: with the data version the run read, absent in messages published before it was carried. */
export type PublishedAnswer = RunPublishedV1;

/** The data version an answer carries, or null (absent, or not a data version). */
export function answerDataVersion(run: PublishedAnswer): string | null {
  return typeof run.dataVersion === 'string' && DATA_VERSION.test(run.dataVersion) ? run.dataVersion : null;
}

/**
 * Turns what the platform publishes into problem-signal refs: answer versions (run.published),
 * /ao bound to them (ticket.timeline-updated), the Judge's gaps and differences
 * (evaluation.judged) and runtime degradation (run.execution-recorded). Topics arrive in any
 * order; each handler stores what it saw and derives what it now can, idempotently.
 */
@Injectable()
export class CollectSignalsHandler {
  async onPublished(run: PublishedAnswer, ctx: HandlerContext): Promise<void> {
    await lockRun(ctx.manager, run.runId);
    const dataVersion = answerDataVersion(run);
    // The timeline now is the one the run was given (intake publishes it first): its question digest is the run's.
    const given = await timelineOf(ctx.manager, run.ticketKey);
    await saveAnswerVersion(ctx.manager, {
      runId: run.runId,
      ticketKey: run.ticketKey,
      tenant: run.tenant,
      answerFingerprint: run.answerFingerprint,
      cutoff: run.cutoff,
      publishedAt: run.publishedAt,
      decision: run.decision,
      requestedContext: run.clarificationSimulation.requestedContext,
      leadingFamily: leadingFamilyOf(run.internalHandoffMarkdown),
      questionDigest: given?.questionDigest ?? null,
      dataVersion,
    });
    // An answer carrying a record's data version means that record is deployed (never a new answer version alone).
    if (dataVersion) await observeDataVersion(ctx.manager, dataVersion, new Date());
    // An /ao written before this answer was known may bind to it now.
    if (given) await this.rebind(ctx.manager, given, new Date());
    // So may an execution record that arrived first.
    const parked = await takeParkedExecution(ctx.manager, run.runId);
    if (parked) await this.deriveRuntime(parked, ctx.manager);
  }

  async onTimeline(timeline: TicketTimelineUpdatedV1, ctx: HandlerContext): Promise<void> {
    const row: TimelineRow = { ticketKey: timeline.ticketKey, revision: timeline.revision, comments: timeline.comments, bindings: (await timelineOf(ctx.manager, timeline.ticketKey))?.bindings ?? [], questionDigest: timeline.questionDigest ?? null };
    // A redelivered or older revision changes nothing.
    if (!(await saveTimeline(ctx.manager, row, new Date()))) return;
    await this.rebind(ctx.manager, row, new Date());
    // A `/ticket` comment opens a single-ticket job (one per comment id; a redelivery is the same job).
    await enqueueTicketCommands(ctx.manager, row.ticketKey, row.comments, new Date());
  }

  async onJudged(evaluation: EvaluationJudgedV1, ctx: HandlerContext): Promise<void> {
    const version = (await answerVersionsOf(ctx.manager, evaluation.ticketKey)).find((v) => v.runId === evaluation.runId) ?? null;
    const timeline = await timelineOf(ctx.manager, evaluation.ticketKey);
    const source = this.source(evaluation.runId, evaluation.answerFingerprint, version, timeline, []);
    await upsertSignals(ctx.manager, evaluationSignals(evaluation, source), new Date());
    await saveVerdict(ctx.manager, evaluation.runId, evaluation.verdict, evaluation.revision, evaluation.aiGaps.length);
  }

  async onExecution(record: RunExecutionRecordedV1, ctx: HandlerContext): Promise<void> {
    await lockRun(ctx.manager, record.runId);
    // Without the answer version the signal has no source to bind yet: parked until run.published.
    if (!(await this.deriveRuntime(record, ctx.manager))) await parkExecution(ctx.manager, record, new Date());
  }

  /** Runtime signals of an execution record whose answer version is known; false when it is not (yet). */
  private async deriveRuntime(record: RunExecutionRecordedV1, m: EntityManager): Promise<boolean> {
    const version = (await answerVersionsOf(m, record.ticketKey)).find((v) => v.runId === record.runId) ?? null;
    if (!version) return false;
    const timeline = await timelineOf(m, record.ticketKey);
    await upsertSignals(m, runtimeSignals(record, this.source(record.runId, version.answerFingerprint, version, timeline, [])), new Date());
    return true;
  }

  /** Binds the timeline's /ao to the known answer versions and derives their feedback signals. */
  private async rebind(m: EntityManager, timeline: TimelineRow, now: Date): Promise<void> {
    const versions = await answerVersionsOf(m, timeline.ticketKey);
    // Refs derived before this ticket's first timeline get the conversation digest now.
    for (const v of versions) {
      const source = this.source(v.runId, v.answerFingerprint, v, timeline, []);
      await fillUnknownDigests(m, timeline.ticketKey, v.runId, source.ticketDigest, source.questionDigest ?? null);
    }
    const { bindings } = bindFeedback(timeline.bindings, timeline.comments, versions);
    await saveBindings(m, timeline.ticketKey, bindings);
    for (const v of versions) {
      const mine = bindings.filter((b) => b.runId === v.runId);
      if (mine.length === 0) continue;
      const refs = timeline.comments.filter((c) => mine.some((b) => b.commentId === c.id)).map((c) => ({ id: c.id, bodyDigest: bodyDigest(c.body) }));
      await upsertSignals(m, feedbackSignals(timeline.ticketKey, mine, this.source(v.runId, v.answerFingerprint, v, timeline, refs)), now);
    }
  }

  private source(runId: string, answerFingerprint: string, version: AnswerVersionRow | null, timeline: TimelineRow | null, referenceComments: SignalSource['referenceComments']): SignalSource {
    const anchor = version?.cutoff ?? version?.publishedAt ?? null;
    return { runId, answerFingerprint, cutoff: version?.cutoff ?? null, ticketDigest: anchor ? analysedDigest(timeline?.comments ?? null, anchor) : 'unknown', questionDigest: version?.questionDigest ?? timeline?.questionDigest ?? null, referenceComments };
  }
}
