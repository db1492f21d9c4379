// `npm start`: every role in one process on embedded defaults (in-process bus, PGlite,
// built-in engine). Tracing starts before anything else is loaded.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry } from '@aoc/telemetry';

const spans = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'aoc-embedded', spanProcessors: [new SimpleSpanProcessor(spans)] });

async function main(): Promise<void> {
  const path = await import('node:path');
  const fs = await import('node:fs');
  const { startPlatform, loadExample, runExample, messageLines, BUNDLED_TICKETS: tickets } = await import('@aoc/launcher');
  const args = process.argv.slice(2);
  // --serve keeps every role running with the router API and the reporter dashboard on localhost.
  const serve = args.includes('--serve');
  const chosen = args.find((a) => !a.startsWith('--'));
  // Every bundled ticket by default; one file when given.
  const examples = chosen ? [chosen] : fs.readdirSync(tickets).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(tickets, f));
  const started = Date.now();
  const ports: Record<string, number> = { router: Number(process.env['AOC_ROUTER_PORT'] ?? 8080), reporter: Number(process.env['AOC_REPORTER_PORT'] ?? 8085), optimizer: Number(process.env['AOC_OPTIMIZER_PORT'] ?? 8086) };
  const platform = await startPlatform({ httpFor: (d) => (serve ? ports[d.role] : undefined) });
  let keepRunning = false;
  try {
    const rows: string[] = [];
    let lastRun = '';
    process.stdout.write(`Auto-oncall: six roles in one process (in-process bus, embedded Postgres, built-in engine, replayed evidence); ${examples.length} ticket(s)\n`);
    for (const example of examples) {
      const ticketStarted = Date.now();
      const { accepted, summary } = await runExample(platform, loadExample(example));
      lastRun = accepted.runId;
      const traceSpans = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === accepted.traceId);
      const roles = new Set(traceSpans.map((s) => String(s.attributes['aoc.role'] ?? 'router')));
      const topics = [...new Set(traceSpans.map((s) => s.attributes['messaging.destination.name']).filter((t): t is string => typeof t === 'string'))];
      const out = [
        '',
        `=== ${path.basename(example)} ===`,
        `ticket    ${accepted.ticketKey}`,
        `run       ${accepted.runId}  (replay cutoff ${accepted.cutoff ?? 'none'}, ${accepted.analysisComments} customer comment(s) visible to the analysis)`,
        `trace     ${accepted.traceId}  (${traceSpans.length} spans across ${roles.size} roles)`,
        `topics    ${topics.join(' -> ')}`,
        `evidence  ${summary.evidenceStatus}${summary.failureCodes.length ? ` (${summary.failureCodes.join(', ')})` : ''}`,
        `decision  ${summary.decision}`,
        `verdict   ${summary.verdict}: ${summary.verdictReason}`,
        '',
        ...messageLines(summary),
        ...(summary.aiGaps.length ? ['--- judge: gaps against the human answer ---', ...summary.aiGaps.map((g) => `- ${g}`), ''] : []),
      ];
      process.stdout.write(out.join('\n') + '\n');
      rows.push(`${accepted.ticketKey.padEnd(10)} ${String(summary.evidenceStatus).padEnd(13)} ${summary.decision.padEnd(15)} ${String(summary.verdict).padEnd(20)} ${Date.now() - ticketStarted} ms  ${path.basename(example)}`);
    }
    process.stdout.write(['', '=== summary ===', `${'ticket'.padEnd(10)} ${'evidence'.padEnd(13)} ${'decision'.padEnd(15)} ${'verdict'.padEnd(20)} time`, ...rows, '', `done in ${Date.now() - started} ms`, ''].join('\n'));
    if (serve) {
      keepRunning = true;
      const dashboard = platform.roles.get('reporter')?.httpUrl;
      const intake = platform.roles.get('router')?.httpUrl;
      const optimizer = platform.roles.get('optimizer')?.httpUrl;
      // Deny by default: the local operator gets one admin token, printed once (valid 12 hours).
      const { TokenStore } = await import('@aoc/auth');
      const { token } = await new TokenStore(platform.dataSource).create({ name: 'npm start --serve', role: 'admin', tenant: '*', createdBy: 'npm start', expiresAt: new Date(Date.now() + 12 * 3_600_000) });
      process.stdout.write(
        [
          '',
          `admin token (shown once, valid 12 h): ${token}`,
          `sign in   ${dashboard}/auth/sign-in (paste the token), then ${dashboard}/runs/${lastRun}`,
          `optimizer ${optimizer}/auth/sign-in, then ${optimizer}/focuses`,
          `intake    POST ${intake}/v1/tickets/analyze, POST ${intake}/v1/tickets/publish-read with "Authorization: Bearer <token>"`,
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
      const stop = () => void platform.stop().then(() => telemetry.shutdown()).finally(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }
  } finally {
    if (!keepRunning) {
      await platform.stop();
      await telemetry.shutdown();
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
