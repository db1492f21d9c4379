// `npm run aoc -- analyze <ticket.json> [--prometheus URL [--target-label L]] [--providers FILE] [--mode read|write] [--ticket-dir DIR] [--cutoff ISO] [--json]`
// Analyses one ticket with every role in this process and prints the two messages, the decision
// and the evidence status as soon as the answer is published; the verdict is awaited only when the
// ticket holds a human answer (a public Support reply after the cutoff) for the Judge to compare.
// Evidence is replayed from the bundled recordings unless `--prometheus` (your own Prometheus; targets are the values of its target label, default
// `cluster`) or `--providers` (a JSON file: {prometheus?: [{name, baseUrl, bearerToken?,
// targetLabel?}], clinic?, manus?, wetech?}, each package's own configuration) make it live. In
// write mode the answer is written as one internal comment to a JSON-file ticket source.
import type { ExampleRequest } from '@aoc/launcher';
import { startTelemetry } from '@aoc/telemetry';

const telemetry = startTelemetry({ serviceName: 'aoc-cli' });

const USAGE = [
  'usage: aoc analyze <ticket.json> [--prometheus URL [--target-label LABEL]] [--providers FILE] [--mode read|write] [--ticket-dir DIR] [--cutoff ISO-8601] [--json]',
  '       aoc timeline backfill [--router URL] [--limit N<=500] [--ticket KEY ...]',
  '       aoc token create --role viewer|support|operator|admin --tenant T [--name N] [--expires-in 90d] [--database URL]',
  '       aoc token list [--database URL]  |  aoc token revoke <id> [--database URL]',
  '       aoc optimize select|baseline|iterate|status|schedule [--database URL] [--state-dir DIR] [--cases DIR ...] [--recordings FILE ...] [--from-deployment] [--git DIR] [--json]',
  '       aoc dlq list [--topic T] [--since 2026-12-01|24h] [--json]  |  aoc dlq replay <id> | --topic T [--since D] [--dry-run] [--json]   (Kafka admin: KAFKA_BROKERS, AOC_KAFKA_ADMIN_PASSWORD)',
].join('\n');

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<number> {
  const [command, file, ...rest] = process.argv.slice(2);
  if (command === 'timeline' && file === 'backfill') {
    // Re-reads answered tickets' comments now on a running router (its timeline collector).
    const { parseBackfillArgs, backfillTimelines } = await import('./cli-timeline');
    process.stdout.write(`${JSON.stringify(await backfillTimelines(parseBackfillArgs(rest)))}\n`);
    await telemetry.shutdown();
    return 0;
  }
  if (command === 'token') {
    // API tokens in the deployment's credential store (DATABASE_URL or --database).
    const { parseTokenArgs, runTokenCommand } = await import('./cli-token');
    const lines = await runTokenCommand(parseTokenArgs([file ?? '', ...rest]));
    process.stdout.write(`${lines.join('\n')}\n`);
    await telemetry.shutdown();
    return 0;
  }
  if (command === 'optimize') {
    // One optimizer step on the optimizer's schema (see tools/cli-optimize.ts).
    const { parseOptimizeArgs, runOptimizeStep } = await import('./cli-optimize');
    const result = await runOptimizeStep(parseOptimizeArgs([file ?? '', ...rest]));
    process.stdout.write(`${rest.includes('--json') ? JSON.stringify(result.json) : result.text}\n`);
    await telemetry.shutdown();
    return 0;
  }
  if (command === 'dlq') {
    // Dead letters on the deployment's Kafka, with the admin principal (see tools/cli-dlq.ts).
    const { parseDlqArgs, runDlqCommand, dlqKafkaOf } = await import('./cli-dlq');
    const args = parseDlqArgs([file ?? '', ...rest]);
    const kafka = dlqKafkaOf(args);
    try {
      const result = await runDlqCommand(args, kafka);
      process.stdout.write(`${args.json ? JSON.stringify(result.json) : result.lines.join('\n')}\n`);
      return result.exitCode;
    } finally {
      await kafka.disconnect();
      await telemetry.shutdown();
    }
  }
  if (command !== 'analyze' || !file) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const { startPlatform, loadExample, runExample, runEnd, waitForInventories, waitForRun, waitForWriteBack, messageLines } = await import('@aoc/launcher');
  const request = loadExample(file);
  const mode = option(rest, '--mode');
  if (mode !== undefined && mode !== 'read' && mode !== 'write') {
    process.stderr.write(`--mode must be read or write\n${USAGE}\n`);
    return 2;
  }
  const cutoff = option(rest, '--cutoff');
  let ticketDir: string | null = null;
  if (mode === 'write') {
    // The ticket source the comment goes to: the ticket file's JSON is stored there if absent.
    const { mkdtempSync, existsSync, writeFileSync, mkdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    ticketDir = option(rest, '--ticket-dir') ?? mkdtempSync(join(tmpdir(), 'aoc-tickets-'));
    mkdirSync(ticketDir, { recursive: true });
    const ticketFile = join(ticketDir, `${request.ticket.key}.json`);
    if (!existsSync(ticketFile)) writeFileSync(ticketFile, JSON.stringify(request.ticket, null, 2));
  }
  const { JsonFileTicketSource } = await import('@aoc/ticket-source');
  const { liveExecutorOptions } = await import('./cli-providers');
  const executor = liveExecutorOptions({ prometheus: option(rest, '--prometheus'), targetLabel: option(rest, '--target-label'), providersFile: option(rest, '--providers') });
  const platform = await startPlatform({ ...(executor ? { executor } : {}), ...(ticketDir ? { router: { ticketSource: new JsonFileTicketSource({ directory: ticketDir }) } } : {}) });
  const json = rest.includes('--json');
  const print = (lines: string[]) => (json ? undefined : process.stdout.write(lines.join('\n') + '\n'));
  try {
    // A slow live listing must land before the ticket: without it the router cannot resolve the cluster and asks for it.
    if (executor && !(await waitForInventories(platform.dataSource, 1, 30_000))) process.stderr.write('aoc: no provider inventory arrived; the cluster the ticket names may not resolve\n');
    const submitted: ExampleRequest = { ...request, ...(mode ? { mode } : {}), ...(cutoff ? { cutoff, trigger: 'replay' as const } : {}) };
    // The Judge only judges against a human answer: without one no verdict ever comes, so none is awaited.
    const judged = runEnd(submitted) === 'judged';
    const { accepted, summary: published } = await runExample(platform, submitted, 60000, 'published');
    // Write mode: the comment is written right after publication; wait for its outcome.
    const writeBack = ticketDir ? await waitForWriteBack(platform, accepted.runId) : null;
    print([
      `ticket ${accepted.ticketKey}  run ${accepted.runId}  trace ${accepted.traceId}`,
      `decision ${published.decision}; evidence ${published.evidenceStatus}${published.failureCodes.length ? ` (${published.failureCodes.join(', ')})` : ''}`,
      '',
      ...messageLines(published),
      ...(ticketDir ? [`internal comment: ${writeBack?.status ?? 'not written'}${writeBack?.errorCode ? ` (${writeBack.errorCode})` : ''} in ${ticketDir}/${accepted.ticketKey}.comments.json`, ''] : []),
    ]);
    let summary = published;
    let verdictError: string | null = null;
    if (judged) {
      print(['waiting for the Judge: the ticket holds a human answer']);
      try {
        summary = await waitForRun(platform, accepted.runId, 'judged', 60000);
      } catch (error) {
        // The timeout's message carries the whole last summary; the messages above already show it.
        verdictError = error instanceof Error ? error.message.replace(/ \(last: [\s\S]*$/, '') : String(error);
      }
    }
    if (json) {
      process.stdout.write(JSON.stringify({ ...accepted, ...summary, verdictExpected: judged, ...(ticketDir ? { ticketDir, writeBack } : {}) }, null, 2) + '\n');
    } else if (!judged) {
      print(['verdict: none (the ticket holds no human answer to compare with)']);
    } else if (summary.verdict) {
      print([`verdict: ${summary.verdict}${summary.verdictReason ? ` (${summary.verdictReason})` : ''}`]);
    }
    if (verdictError) {
      process.stderr.write(`aoc: the answer is published, but the Judge gave no verdict: ${verdictError}\n`);
      return 1;
    }
    return 0;
  } finally {
    await platform.stop();
    await telemetry.shutdown();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`aoc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
