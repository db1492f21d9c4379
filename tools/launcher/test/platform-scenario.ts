import { join } from 'node:path';
import { Topics } from '@aoc/contracts';
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadExample, runExample } from '../src/run-example';
import type { Platform } from '../src/embedded-platform';
import { assertOneTraceWithParentLinks } from './trace-assertions';

export const EXAMPLE = join(__dirname, '..', '..', '..', 'services', 'router', 'examples', 'tickets', 'latency-regression.json');

/** The walking-skeleton assertions shared by the in-process and the Kafka runs. */
export async function runSkeletonScenario(platform: Platform, spans: InMemorySpanExporter): Promise<void> {
  const request = loadExample(EXAMPLE);
  const { accepted, summary } = await runExample(platform, request, 90000);
  expect(summary.ticketKey).toBe('SUP-1042');
  expect(summary.answerFingerprint).toMatch(/^[a-f0-9]{64}$/);
  // Honest skeleton: no connector, so nothing is claimed about the cause.
  expect(summary.evidenceStatus).toBe('failed');
  expect(summary.failureCodes).toEqual(['PROVIDER.NOT_CONFIGURED']);
  expect(summary.decision).toBe('human_required');
  expect(summary.customerReplyMarkdown).toContain('tidb-prod-7f3a');
  expect(summary.customerReplyMarkdown).toMatch(/cannot confirm a cause/);
  expect(summary.internalHandoffMarkdown).toContain('PROVIDER.NOT_CONFIGURED');
  expect(summary.verdict).toBe('human_better');
  await new Promise((r) => setTimeout(r, 200));
  assertOneTraceWithParentLinks(spans.getFinishedSpans(), accepted.traceId, ['router', 'evidence', 'provider-executor', 'judge', 'reporter']);
  const topicsInTrace = new Set(spans.getFinishedSpans().filter((s) => s.spanContext().traceId === accepted.traceId).map((s) => s.attributes['messaging.destination.name']));
  for (const t of [Topics.scenarioSelected, Topics.evidenceRequested, Topics.evidenceBatchPlanned, Topics.evidenceBatchMaterialized, Topics.diagnosisHandoffConsumed, Topics.runPublished, Topics.runExecutionRecorded, Topics.evaluationJudged]) {
    expect([...topicsInTrace]).toContain(t.name);
  }
}
