import { readFileSync } from 'node:fs';
import { RunSummaryQuery, type RunSummary } from '@aoc/service-reporter';
import { TicketIntakeService, type AnalyzeTicketAccepted, type AnalyzeTicketRequest } from '@aoc/service-router';
import type { Platform } from './embedded-platform';

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
