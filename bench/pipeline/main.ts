// Pipeline benchmark: runs the parts in order and prints the report (entry: bench/pipeline.bench.ts).
import { startTelemetry } from '@aoc/telemetry';
import { RUN_TAG, SKIP_KAFKA, progress } from '../bus/config';
import { errorText } from '../bus/phase';
import { inProcessPart } from './in-process';
import { kafkaPipelinePart } from './kafka';
import type { Part } from './part';
import { report } from './report';
import { TicketCycle, recordedTickets } from './tickets';

/** Returns the exit code: 1 when a part failed or stalled, 0 otherwise (a part skipped for a missing service included). */
export async function main(): Promise<number> {
  // As a role process without OTEL_EXPORTER_OTLP_ENDPOINT: spans are made and propagated, not exported.
  const telemetry = startTelemetry({ serviceName: 'aoc-bench-pipeline' });
  const notes: string[] = [];
  const failures: string[] = [];
  const parts: Part[] = [];
  const examples = recordedTickets();
  const cycle = new TicketCycle(examples);
  try {
    progress(`run ${RUN_TAG}: in-process part`);
    parts.push(await inProcessPart(cycle));
    if (SKIP_KAFKA) {
      notes.push('kafka: SKIPPED (pipeline and floors): BENCH_SKIP_KAFKA=1');
    } else {
      progress('kafka part');
      parts.push(await kafkaPipelinePart(cycle));
    }
  } catch (error) {
    failures.push(errorText(error));
  } finally {
    await telemetry.shutdown().catch((error: unknown) => progress(`warning: telemetry shutdown: ${errorText(error)}`));
  }
  report(
    parts,
    examples.map((e) => e.name),
    notes,
    failures,
  );
  return failures.length + parts.reduce((sum, p) => sum + p.failures.length, 0) > 0 ? 1 : 0;
}
