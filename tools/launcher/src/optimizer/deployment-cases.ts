import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TicketAnalysisRequestedV1 } from '@aoc/contracts';
import type { DataSource } from 'typeorm';

/**
 * Frozen cases of a deployment: the router keeps each run's frozen request (the ticket as the
 * analysis saw it, and its cutoff), and a Provider Executor in `record` mode keeps the sanitised
 * results it fetched. Written as case files keyed by run id, plus one recordings file, so the
 * optimizer replays live answer versions exactly as they ran. A run whose request no longer parses
 * is left out (its case comes back as not executed, with the reason).
 */
export async function freezeDeploymentCases(dataSource: DataSource, dir: string): Promise<{ caseFiles: Map<string, string>; recordingsFile: string }> {
  const runs: { run_id: string; request: unknown }[] = await dataSource.query(`SELECT "run_id", "request" FROM "router"."runs" WHERE "request" IS NOT NULL ORDER BY "created_at"`);
  const caseFiles = new Map<string, string>();
  for (const row of runs) {
    const parsed = TicketAnalysisRequestedV1.safeParse(typeof row.request === 'string' ? JSON.parse(row.request) : row.request);
    if (!parsed.success) continue;
    const r = parsed.data;
    // A live run's input ends when it was requested: that is its cutoff for a replay.
    const file = join(dir, `${r.runId}.json`);
    writeFileSync(file, JSON.stringify({ mode: 'read', trigger: 'replay', cutoff: r.cutoff ?? r.requestedAt, ticket: r.ticket }));
    caseFiles.set(r.runId, file);
  }
  const entries: { entry: unknown }[] = await dataSource.query(`SELECT "entry" FROM "provider_executor"."evidence_recordings" ORDER BY "key"`);
  const recordingsFile = join(dir, 'recordings.json');
  writeFileSync(recordingsFile, JSON.stringify(entries.map((e) => (typeof e.entry === 'string' ? JSON.parse(e.entry) : e.entry))));
  return { caseFiles, recordingsFile };
}
