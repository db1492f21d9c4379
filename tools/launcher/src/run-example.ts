import { readFileSync } from 'node:fs';
import { RunSummaryQuery, type RunSummary } from '@aoc/service-reporter';
import { TicketIntakeService, type AnalyzeTicketAccepted, type AnalyzeTicketRequest } from '@aoc/service-router';
import type { Platform } from './embedded-platform';

export interface ExampleResult {
  accepted: AnalyzeTicketAccepted;
  summary: RunSummary;
}

export function loadExample(path: string): AnalyzeTicketRequest {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as AnalyzeTicketRequest & { description?: string };
  delete raw.description;
  return raw;
}

/** Submits a ticket through the router's intake and waits until the reporter has its verdict. */
export async function runExample(platform: Platform, request: AnalyzeTicketRequest, timeoutMs = 60000): Promise<ExampleResult> {
  const router = platform.roles.get('router');
  const reporter = platform.roles.get('reporter');
  if (!router || !reporter) throw new Error('router and reporter must be running');
  const accepted = await router.get(TicketIntakeService).analyze(request);
  const query = reporter.get(RunSummaryQuery);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const summary = await query.find(accepted.runId);
    if (summary && summary.verdict && summary.evidenceStatus) return { accepted, summary };
    if (Date.now() > deadline) throw new Error(`run ${accepted.runId} did not reach a verdict within ${timeoutMs} ms (last: ${JSON.stringify(summary)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
