import type { AnswerVersionView, ProviderDayHealth, QualityReport, WeeklyReport } from '../reports/report.types';
import type { RunSummary } from '../run-summary/run-summary.query';
import type { RunListPage } from './dashboard-runs.query';

/** Fixture objects of the read-model types, for the view and controller specs. */

export const HOSTILE = '<script>alert("x")</script>';

export function runSummaryFixture(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: 'run-1',
    ticketKey: 'SUP-1042',
    tenant: 'default',
    decision: 'human_required',
    answerFingerprint: 'a'.repeat(64),
    publishedAt: '2026-11-20T11:05:00.000Z',
    customerReplyMarkdown: 'Thanks for reporting.\n\nWhat the data shows:\n- p99 went from **40ms** to `90ms`',
    internalHandoffMarkdown: '**Evidence boundary:** metrics via clinic (complete).\n**Gap owner:** none.',
    evidenceStatus: 'complete',
    failureCodes: [],
    toolCalls: [],
    verdict: 'different_but_valid',
    verdictReason: 'Both answers point at the report query.',
    abstentionCode: null,
    aiGaps: ['did not name the missing index'],
    ...overrides,
  };
}

export function runListFixture(): RunListPage {
  return {
    rows: [
      { runId: 'run-2', ticketKey: 'SUP-1043', trigger: 'initial', decision: 'internal_only', publishedAt: '2026-11-20T12:00:00.000Z', evidenceStatus: 'degraded', verdict: null },
      { runId: 'run-1', ticketKey: 'SUP-1042', trigger: 'replay', decision: 'human_required', publishedAt: '2026-11-20T11:05:00.000Z', evidenceStatus: 'complete', verdict: 'human_better' },
    ],
    nextBefore: 'run-1',
  };
}

export function answerVersionFixture(overrides: Partial<AnswerVersionView> = {}): AnswerVersionView {
  return {
    runId: 'run-1',
    ticketKey: 'SUP-1042',
    answerFingerprint: 'b'.repeat(64),
    publishedAt: '2026-11-20T11:05:00.000Z',
    trigger: 'initial',
    decision: 'human_required',
    customerReplyMarkdown: 'We are looking into it.',
    internalHandoffMarkdown: '**Gap owner:** Support.',
    verdict: 'human_better',
    verdictReason: 'The human found the index.',
    feedback: [],
    ...overrides,
  };
}

export function providerHealthFixture(): ProviderDayHealth[] {
  return [
    { day: '2026-11-19', provider: 'clinic', queries: 10, succeeded: 9, failed: 1, successRate: 0.9, http: { status200: 9, status400: 0, status500: 2, status502: 0, other: 0 } },
    { day: '2026-11-20', provider: 'clinic', queries: 4, succeeded: 4, failed: 0, successRate: 1, http: { status200: 4, status400: 0, status500: 0, status502: 0, other: 0 } },
    { day: '2026-11-20', provider: 'prometheus', queries: 2, succeeded: 1, failed: 1, successRate: 0.5, http: { status200: 1, status400: 1, status500: 0, status502: 1, other: 0 } },
  ];
}

export function dailyReportFixture(overrides: Partial<QualityReport> = {}): QualityReport {
  return {
    period: { kind: 'daily', from: '2026-11-20', to: '2026-11-20' },
    tenant: null,
    generatedAt: '2026-11-20T15:00:00.000Z',
    runsCounted: 3,
    quality: { good: 1, bad: 1, unknown: 1 },
    verdicts: [
      { verdict: 'human_better', count: 1 },
      { verdict: 'equivalent', count: 1 },
      { verdict: 'unjudged', count: 1 },
    ],
    topGaps: [{ gap: 'did not name the missing index', count: 2 }],
    runtimeSignals: [{ runId: 'run-2', ticketKey: 'SUP-1043', provider: 'clinic', evidenceStatus: 'degraded', verdict: null, failureCodes: ['PROVIDER.HTTP_5XX'] }],
    providerHealth: providerHealthFixture().filter((h) => h.day === '2026-11-20'),
    funnel: { ticketsAnalysed: 3, runsPublished: 3, answersWithHumanReply: 2, answersJudged: 2, answersWithFeedback: 1, feedbackByAction: { accept: 0, revise: 1, wrong: 0, human: 0 } },
    ...overrides,
  };
}

export function emptyDailyReport(day: string): QualityReport {
  return {
    period: { kind: 'daily', from: day, to: day },
    tenant: null,
    generatedAt: `${day}T00:00:00.000Z`,
    runsCounted: 0,
    quality: { good: 0, bad: 0, unknown: 0 },
    verdicts: [],
    topGaps: [],
    runtimeSignals: [],
    providerHealth: [],
    funnel: { ticketsAnalysed: 0, runsPublished: 0, answersWithHumanReply: 0, answersJudged: 0, answersWithFeedback: 0, feedbackByAction: { accept: 0, revise: 0, wrong: 0, human: 0 } },
  };
}

export function weeklyReportFixture(overrides: Partial<WeeklyReport> = {}): WeeklyReport {
  return {
    ...dailyReportFixture(),
    period: { kind: 'weekly', from: '2026-11-16', to: '2026-11-22' },
    providerHealth: providerHealthFixture(),
    provider5xx: [
      {
        provider: 'clinic',
        queryId: 'p99-latency',
        episodes: 2,
        recovered: 1,
        stillFailed: 1,
        tickets: ['SUP-1042', 'SUP-1043'],
        maxAttempts: 3,
        upstreamErrors: ['502 Bad Gateway'],
        requestIds: ['req-abc'],
      },
    ],
    ...overrides,
  };
}
