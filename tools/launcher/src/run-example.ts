import { readFileSync } from 'node:fs';
import { RunSummaryQuery, type RunSummary } from '@aoc/service-reporter';
import { TicketIntakeService, type AnalyzeTicketAccepted, type AnalyzeTicketRequest } from '@aoc/service-router';
import type { Platform } from './embedded-platform';
import { holdsHumanAnswer } from './human-answer';

export { holdsHumanAnswer, humanAnswerComments } from './human-answer';

export interface ExampleResult {
  accepted: AnalyzeTicketAccepted;
  summary: RunSummary;
}

/** A bundled example: a request that carries its ticket (examples never read a ticket source). */
export type ExampleRequest = AnalyzeTicketRequest & { ticket: NonNullable<AnalyzeTicketRequest['ticket']> };

export function loadExample(path: string): ExampleRequest {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as ExampleRequest & { description?: string };
  delete raw.description;
  return raw;
}

/** Submits a ticket through the router's intake and waits until the reporter has its verdict. */
export async function runExample(platform: Platform, request: AnalyzeTicketRequest, timeoutMs = 60000, until: 'published' | 'judged' = 'judged'): Promise<ExampleResult> {
  const router = platform.roles.get('router');
  if (!router) throw new Error('router and reporter must be running');
  const accepted = await router.get(TicketIntakeService).analyze(request);
  return { accepted, summary: await waitForRun(platform, accepted.runId, until, timeoutMs) };
}

/** What a run of this request ends with: `judged` when the ticket holds a human answer for the Judge, else `published`. */
export function runEnd(request: Pick<AnalyzeTicketRequest, 'cutoff'> & { ticket: ExampleRequest['ticket'] }): 'published' | 'judged' {
  return holdsHumanAnswer(request.ticket, request.cutoff) ? 'judged' : 'published';
}

/**
 * Waits until the reporter knows a run: `published` once its answer and execution state arrived,
 * `judged` once it also has a verdict (a ticket without a later human answer never gets one).
 */
export async function waitForRun(platform: Platform, runId: string, until: 'published' | 'judged', timeoutMs = 60000): Promise<RunSummary> {
  const reporter = platform.roles.get('reporter');
  if (!reporter) throw new Error('router and reporter must be running');
  const query = reporter.get(RunSummaryQuery);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const summary = await query.find(runId);
    if (summary?.evidenceStatus && (until === 'published' || summary.verdict)) return summary;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not reach a verdict within ${timeoutMs} ms (last: ${JSON.stringify(summary)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface WriteBackOutcome {
  status: string;
  commentId: string | null;
  idempotencyKey: string;
  errorCode: string | null;
}

/** Waits until a write-mode run has recorded its write-back (written or failed); null if it never does. */
export async function waitForWriteBack(platform: Platform, runId: string, timeoutMs = 30000): Promise<WriteBackOutcome | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row]: { write_back: WriteBackOutcome | null }[] = await platform.dataSource.query(`SELECT "write_back" FROM "router"."runs" WHERE "run_id" = $1`, [runId]);
    const state = row?.write_back ?? null;
    if ((state && state.status !== 'writing') || Date.now() > deadline) return state;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The two published messages as the CLI and `npm start` print them. */
export function messageLines(summary: Pick<RunSummary, 'customerReplyMarkdown' | 'internalHandoffMarkdown'>): string[] {
  return ['--- customer reply ---', summary.customerReplyMarkdown, '', '--- internal handoff ---', summary.internalHandoffMarkdown, ''];
}
