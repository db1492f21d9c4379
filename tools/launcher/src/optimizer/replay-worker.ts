import { readFileSync, writeFileSync } from 'node:fs';
import { Topics, type EvidenceBatchPlannedV1, type RunExecutionRecordedV1, type RunPublishedV1 } from '@aoc/contracts';
import { classifyMetric } from '@aoc/metric-ontology';
import { evidenceDefinition } from '@aoc/service-evidence';
import { loadRecordings } from '@aoc/service-provider-executor';
import { providerExecutorDefinition } from '@aoc/service-provider-executor';
import { reporterDefinition } from '@aoc/service-reporter';
import { routerDefinition } from '@aoc/service-router';
import { startPlatform, type Platform } from '../embedded-platform';
import { loadExample, runExample } from '../run-example';
import { WorkerInput, type WorkerOutput } from './replay-protocol';

/**
 * One replay pass in its own process: the chain (router, evidence, executor, reporter) on the
 * embedded defaults, replayed evidence only, versioned data as this process reads it (the parent
 * sets AOC_VERSIONED_DATA_DIR for a challenger). Each case runs at its own cutoff; the answer, the
 * families it asked for and its execution state are written back. Run by the optimizer's replay port.
 */

const payloads = <T>(platform: Platform, topic: { name: string }): T[] => (platform.broker?.messages(topic.name) ?? []).map((m) => (JSON.parse(m.value.toString('utf8')) as { payload: T }).payload);

/** Metric names in a planned expression, by the ontology's family. */
function familiesOf(plans: readonly EvidenceBatchPlannedV1[]): string[] {
  const names = plans.flatMap((p) => p.queries.flatMap((q) => [...q.expression.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{|\[)/g)].map((m) => m[1])));
  return [...new Set(names.map((n) => classifyMetric(n).family as string).filter((f) => f !== 'unknown'))].sort();
}

async function main(): Promise<void> {
  const [inputPath, outputPath] = process.argv.slice(2);
  const input = WorkerInput.parse(JSON.parse(readFileSync(inputPath, 'utf8')));
  const recordings = [...loadRecordings(), ...input.recordings.flatMap((p) => loadRecordings(p))];
  const platform = await startPlatform({ services: [routerDefinition, evidenceDefinition, providerExecutorDefinition, reporterDefinition], executor: { mode: 'replay', recordings, prometheusTargets: [] }, logLevel: 'error' });
  const out: WorkerOutput = { results: [] };
  try {
    // A few cases in flight: each run is independent, the chain interleaves them.
    const queue = [...input.cases];
    const one = async (c: WorkerInput['cases'][number]) => {
      try {
        const request = loadExample(c.ticketFile);
        const { accepted } = await runExample(platform, { ...request, cutoff: c.cutoff ?? request.cutoff, trigger: 'replay' }, input.timeoutMs, 'published');
        const published = payloads<RunPublishedV1>(platform, Topics.runPublished).find((p) => p.runId === accepted.runId);
        const execution = payloads<RunExecutionRecordedV1>(platform, Topics.runExecutionRecorded).find((p) => p.runId === accepted.runId);
        if (!published) throw new Error(`run ${accepted.runId} published nothing`);
        out.results.push({
          caseId: c.caseId,
          answer: {
            customerReplyMarkdown: published.customerReplyMarkdown,
            internalHandoffMarkdown: published.internalHandoffMarkdown,
            decision: published.decision,
            requestedContext: published.clarificationSimulation.requestedContext,
            queriedFamilies: familiesOf(payloads<EvidenceBatchPlannedV1>(platform, Topics.evidenceBatchPlanned).filter((p) => p.runId === accepted.runId)),
          },
          execution: {
            responseGeneration: execution?.responseGeneration.status === 'succeeded' ? 'complete' : 'failed',
            providerCapability: execution && execution.evidenceAcquisition.capability !== 'none' && execution.evidenceAcquisition.status !== 'failed' ? 'verified' : 'unverified',
          },
          error: null,
        });
      } catch (error) {
        out.results.push({ caseId: c.caseId, answer: null, execution: { responseGeneration: 'failed', providerCapability: 'unverified' }, error: (error instanceof Error ? error.message : String(error)).slice(0, 300) });
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(input.concurrency, queue.length) }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) await one(c);
      }),
    );
  } finally {
    await platform.stop();
  }
  writeFileSync(outputPath, JSON.stringify(out));
}

main().catch((error: unknown) => {
  process.stderr.write(`replay worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
