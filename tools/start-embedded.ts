// `npm start`: every role in one process on embedded defaults (in-process bus, PGlite,
// built-in engine). Tracing starts before anything else is loaded.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry } from '@aoc/telemetry';

const spans = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'aoc-embedded', spanProcessors: [new SimpleSpanProcessor(spans)] });

async function main(): Promise<void> {
  const path = await import('node:path');
  const { startPlatform, loadExample, runExample } = await import('@aoc/launcher');
  const example = process.argv[2] ?? path.join(__dirname, '..', 'services', 'router', 'examples', 'tickets', 'latency-regression.json');
  const started = Date.now();
  const platform = await startPlatform();
  try {
    const { accepted, summary } = await runExample(platform, loadExample(example));
    const traceSpans = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === accepted.traceId);
    const roles = new Set(traceSpans.map((s) => String(s.attributes['aoc.role'] ?? 'router')));
    const topics = [...new Set(traceSpans.map((s) => s.attributes['messaging.destination.name']).filter((t): t is string => typeof t === 'string'))];
    const out = [
      'Auto-oncall walking skeleton: six roles in one process (in-process bus, embedded Postgres, built-in engine)',
      '',
      `ticket    ${accepted.ticketKey}`,
      `run       ${accepted.runId}  (replay cutoff ${accepted.cutoff ?? 'none'}, ${accepted.analysisComments} customer comment(s) visible to the analysis)`,
      `trace     ${accepted.traceId}  (${traceSpans.length} spans across ${roles.size} roles)`,
      `topics    ${topics.join(' -> ')}`,
      `evidence  ${summary.evidenceStatus}${summary.failureCodes.length ? ` (${summary.failureCodes.join(', ')})` : ''}`,
      `decision  ${summary.decision}`,
      `verdict   ${summary.verdict}: ${summary.verdictReason}`,
      '',
      '--- customer reply ---',
      summary.customerReplyMarkdown,
      '',
      '--- internal handoff ---',
      summary.internalHandoffMarkdown,
      '',
      ...(summary.aiGaps.length ? ['--- judge: gaps against the human answer ---', ...summary.aiGaps.map((g) => `- ${g}`), ''] : []),
      `done in ${Date.now() - started} ms`,
    ];
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    await platform.stop();
    await telemetry.shutdown();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
