import type { Verdict } from '@aoc/contracts';

/**
 * Shapes of the reporter's read models. Reports are computed by deterministic SQL over the
 * reporter's own tables; the dashboard renders exactly these objects.
 */

/** A natural day in Asia/Shanghai, `YYYY-MM-DD`. */
export type ShanghaiDate = string;

export interface VerdictCount {
  verdict: Verdict | 'unjudged';
  count: number;
}

export interface GapCount {
  gap: string;
  count: number;
}

export interface RuntimeSignalRow {
  runId: string;
  ticketKey: string;
  provider: string;
  evidenceStatus: 'degraded' | 'failed';
  verdict: Verdict | null;
  failureCodes: string[];
}

export interface ProviderDayHealth {
  day: ShanghaiDate;
  provider: string;
  /** Logical queries: complete|empty count as success, failed as failure. */
  queries: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  http: { status200: number; status400: number; status500: number; status502: number; other: number };
}

export interface FunnelCounts {
  /** Tickets with an initial or bot_assignment run in the period. */
  ticketsAnalysed: number;
  runsPublished: number;
  answersWithHumanReply: number;
  answersJudged: number;
  answersWithFeedback: number;
  feedbackByAction: { accept: number; revise: number; wrong: number; human: number };
}

export interface QualityReport {
  period: { kind: 'daily' | 'weekly'; from: ShanghaiDate; to: ShanghaiDate };
  generatedAt: string;
  /** Runs counted: triggers initial and bot_assignment only (continuation excluded). */
  runsCounted: number;
  /** Quality projection: explicit accept|revise|wrong feedback owns it, else the verdict mapping. */
  quality: { good: number; bad: number; unknown: number };
  verdicts: VerdictCount[];
  topGaps: GapCount[];
  runtimeSignals: RuntimeSignalRow[];
  providerHealth: ProviderDayHealth[];
  funnel: FunnelCounts;
}

export interface Weekly5xxRow {
  provider: string;
  queryId: string;
  episodes: number;
  recovered: number;
  stillFailed: number;
  tickets: string[];
  maxAttempts: number;
  upstreamErrors: string[];
  requestIds: string[];
}

export interface WeeklyReport extends QualityReport {
  provider5xx: Weekly5xxRow[];
}

export interface AnswerVersionView {
  runId: string;
  ticketKey: string;
  answerFingerprint: string;
  publishedAt: string;
  trigger: string;
  decision: string;
  customerReplyMarkdown: string;
  internalHandoffMarkdown: string;
  verdict: Verdict | null;
  verdictReason: string | null;
  feedback: { commentId: string; action: string; reason: string; inherited: boolean }[];
}

/** What the dashboard and the HTTP API read; implemented over the reporter's tables. */
export interface ReportsReader {
  daily(day: ShanghaiDate): Promise<QualityReport>;
  weekly(weekStart: ShanghaiDate): Promise<WeeklyReport>;
  providerHealth(from: ShanghaiDate, to: ShanghaiDate): Promise<ProviderDayHealth[]>;
  answerVersions(ticketKey: string): Promise<AnswerVersionView[]>;
}

export const REPORTS_READER = Symbol('REPORTS_READER');
