import { DATA_SOURCE } from '@aoc/service-host';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { PublishedRunEntity, ReportedEvaluationEntity, RunExecutionEntity } from '../reporter.entities';

export interface RunSummary {
  runId: string;
  ticketKey: string;
  /** The run's tenant (null: no configured tenant owns the ticket). */
  tenant: string | null;
  decision: string;
  answerFingerprint: string;
  publishedAt: string;
  customerReplyMarkdown: string;
  internalHandoffMarkdown: string;
  evidenceStatus: string | null;
  failureCodes: string[];
  /** Audit record of every provider tool call of the run. */
  toolCalls: RunExecutionEntity['toolCalls'];
  verdict: string | null;
  verdictReason: string | null;
  abstentionCode: string | null;
  aiGaps: string[];
}

/** Reads the reporter's own tables only. */
@Injectable()
export class RunSummaryQuery {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  async find(runId: string): Promise<RunSummary | null> {
    const run = await this.dataSource.manager.findOne(PublishedRunEntity, { where: { runId } });
    if (!run) return null;
    const execution = await this.dataSource.manager.findOne(RunExecutionEntity, { where: { runId } });
    const evaluation = await this.dataSource.manager.findOne(ReportedEvaluationEntity, { where: { runId }, order: { judgedAt: 'DESC' } });
    return {
      runId: run.runId,
      ticketKey: run.ticketKey,
      tenant: run.tenant,
      decision: run.decision,
      answerFingerprint: run.answerFingerprint,
      publishedAt: run.publishedAt.toISOString(),
      customerReplyMarkdown: run.customerReply,
      internalHandoffMarkdown: run.internalHandoff,
      evidenceStatus: execution?.evidenceStatus ?? null,
      failureCodes: execution?.failureCodes ?? [],
      toolCalls: execution?.toolCalls ?? [],
      verdict: evaluation?.verdict ?? null,
      verdictReason: evaluation?.verdictReason ?? null,
      abstentionCode: evaluation?.abstentionCode ?? null,
      aiGaps: evaluation?.aiGaps ?? [],
    };
  }

  /** `tenant`: only that tenant's runs; null: every tenant's. */
  async list(limit = 50, tenant: string | null = null): Promise<{ runId: string; ticketKey: string; decision: string; publishedAt: string }[]> {
    const query = this.dataSource.manager.createQueryBuilder(PublishedRunEntity, 'r').orderBy('r.publishedAt', 'DESC').take(Math.min(Math.max(limit, 1), 500));
    if (tenant !== null) query.where('r.tenant = :tenant', { tenant });
    const runs = await query.getMany();
    return runs.map((r) => ({ runId: r.runId, ticketKey: r.ticketKey, decision: r.decision, publishedAt: r.publishedAt.toISOString() }));
  }
}
