import type { JudgeEligibility, Verdict } from '@aoc/contracts';

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
  /** Every selected provider of the run (never `none`), sorted; `provider` joins them with `+`. */
  providers?: string[];
  publishedAt?: string;
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
  /** Supplemental queries, listed apart: they are not part of the logical-call success rate above. */
  supplemental?: { queries: number; succeeded: number; failed: number };
}

/** All providers of one day together: the success rate weighted by each provider's logical queries. */
export interface ProviderDayOverall {
  day: ShanghaiDate;
  queries: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
}

/** Where each counted run's comparison anchor lies (see the reporter README). */
export type AnchorKind = 'public_reply' | 'internal_comment' | 'none';

export interface AnchorCounts {
  publicReply: number;
  internalComment: number;
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

/** A counted run whose current decided verdict the model judge's cross-check disagreed with (codes only, no ticket text). */
export interface JudgeDisagreementRow {
  runId: string;
  ticketKey: string;
  evaluationId: string;
  judgedAt: string;
  /** The verdict the built-in judge decided (the published one). */
  builtinVerdict: Verdict;
  modelVerdict: Verdict;
  /** The model judge (engine:model). */
  modelEngine: string;
  /** The built-in judge's rule that decided its verdict (e.g. ticket_value_ignored); null when the Judge did not say. */
  reasonCode: string | null;
}

/** The model judge's cross-checks of the counted runs' current decided verdicts (evaluation.judged `crossCheck`). */
export interface JudgeCrossCheckSummary {
  /** Counted runs whose current decided verdict a model judge cross-checked. */
  crossChecked: number;
  /** Of those, the ones where the model gave a different verdict (a model abstention is no disagreement). */
  disagreed: number;
  /** The disagreements by publication time, at most `DISAGREEMENTS_LISTED` of them (`disagreed` counts all). */
  disagreements: JudgeDisagreementRow[];
}

export interface QualityReport {
  period: { kind: 'daily' | 'weekly'; from: ShanghaiDate; to: ShanghaiDate };
  /** The tenant whose runs the figures count; null: every tenant's. */
  tenant: string | null;
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
  /** Weighted overall provider success per day of the period. */
  providerOverall?: ProviderDayOverall[];
  /** Counted runs by comparison anchor. */
  anchors?: AnchorCounts;
  /** Counted runs whose answer version carries `/ao human` (a Judge review was asked for). */
  judgeReviewRequested?: number;
  /** Where a model judge cross-checked the built-in verdicts, and where it disagreed. */
  judgeCrossCheck?: JudgeCrossCheckSummary;
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

/** One evaluation of an answer version (a later human answer adds a revision). */
export interface EvaluationRevisionView {
  evaluationId: string;
  revision: number;
  verdict: Verdict;
  abstentionCode: string | null;
  /** Why the version was or was not compared (derived from verdict and code for evaluations recorded before the field). */
  eligibility: JudgeEligibility;
  judgedAt: string;
  /** The human comments the Judge selected as the human answer. */
  humanCommentIds: string[];
}

/** A comment of the ticket's latest timeline, as the Judge saw it. */
export interface TimelineCommentView {
  commentId: string;
  authorRole: string;
  visibility: string;
  visibleToAi: boolean;
  isFeedback: boolean;
  createdAt: string;
  updatedAt: string;
  body: string;
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
  /** Why the Judge did not compare (JUDGE.* code), when the verdict is not_compared. */
  abstentionCode?: string | null;
  /** Every evaluation of this answer version, oldest first. */
  evaluations?: EvaluationRevisionView[];
  feedback: {
    commentId: string;
    action: string;
    reason: string;
    inherited: boolean;
    /** The run the comment is bound to (differs from runId when inherited). */
    boundRunId?: string;
    authorRole?: string;
    visibility?: string;
    commentCreatedAt?: string;
    commentUpdatedAt?: string;
  }[];
  mode?: string;
  /** Counted by the daily/weekly reports (trigger initial or bot_assignment). */
  counted?: boolean;
  anchor?: { kind: AnchorKind; at: string | null };
  /** First public Support comment after the anchor that is not an /ao command. */
  humanReplyAt?: string | null;
  evaluationId?: string | null;
  aiGaps?: string[];
  quality?: { score: 0 | 1 | null; source: 'feedback' | 'judge' | 'none'; judgeReviewRequested: boolean };
  evidenceStatus?: string | null;
}

/** What the dashboard and the HTTP API read; implemented over the reporter's tables. */
export interface ReportsReader {
  /** `tenant`: count only that tenant's runs (and the provider calls they made); null: every tenant's. */
  daily(day: ShanghaiDate, tenant?: string | null): Promise<QualityReport>;
  weekly(weekStart: ShanghaiDate, tenant?: string | null): Promise<WeeklyReport>;
  providerHealth(from: ShanghaiDate, to: ShanghaiDate, tenant?: string | null): Promise<ProviderDayHealth[]>;
  answerVersions(ticketKey: string): Promise<AnswerVersionView[]>;
  /** The ticket's latest timeline (roles, visibility, visibleToAi), oldest first. */
  ticketTimeline(ticketKey: string): Promise<TimelineCommentView[]>;
}

export const REPORTS_READER = Symbol('REPORTS_READER');
