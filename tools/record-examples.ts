// `npm run examples:record`: runs every bundled example with the executor in record mode and
// writes the sanitised results to services/provider-executor/recordings/examples.json for replay.
// Prometheus examples query a real Prometheus (Debian package) holding their synthetic incident
// series; Clinic examples query the scripted Clinic API, whose metrics route proxies to such a
// Prometheus and whose TopSQL and slow-log routes answer the example's statements.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLINIC_TOKEN = 'examples-clinic-token';

async function main(): Promise<void> {
  const { startPrometheus, startClinicFixture } = await import('@aoc/providers');
  const { startPlatform, loadExample, runExample } = await import('@aoc/launcher');
  const { BUNDLED_RECORDINGS, RecordingEntry } = await import('@aoc/service-provider-executor');
  const { RECORDED_EXAMPLES } = await import('@aoc/launcher');
  const all = new Map<string, ReturnType<typeof RecordingEntry.parse>>();
  for (const example of RECORDED_EXAMPLES) {
    const prom = await startPrometheus(example.series());
    const clinic = example.clinic
      ? await startClinicFixture({
          token: CLINIC_TOKEN,
          cloudConfigToken: 'examples-cloud-config-token',
          metricsUpstream: prom.baseUrl,
          clusters: [{ orgId: example.clinic.orgId, clusterId: example.clinic.clusterId, metadata: example.clinic.metadata, topsql: example.clinic.topsql, slowQueries: example.clinic.slowQueries }],
        })
      : null;
    const platform = await startPlatform({
      executor: clinic
        ? { mode: 'record', recordings: [], prometheusTargets: [], clinic: { clinic: { baseUrl: clinic.baseUrl, token: CLINIC_TOKEN } } }
        : { mode: 'record', recordings: [], prometheusTargets: [{ name: example.target, baseUrl: prom.baseUrl }] },
    });
    try {
      const { accepted, summary } = await runExample(platform, loadExample(join(__dirname, '..', 'services', 'router', 'examples', 'tickets', example.ticketFile)));
      const rows: { entry: unknown }[] = await platform.dataSource.query(`SELECT "entry" FROM "provider_executor"."evidence_recordings" ORDER BY "key"`);
      for (const row of rows) {
        const entry = RecordingEntry.parse(row.entry);
        all.set(entry.key, entry);
      }
      process.stdout.write(`${example.ticketFile}: run ${accepted.runId}, evidence ${summary.evidenceStatus}, ${rows.length} recorded results\n`);
    } finally {
      await platform.stop();
      await clinic?.stop();
      await prom.stop();
    }
  }
  const entries = [...all.values()].sort((a, b) => a.key.localeCompare(b.key));
  writeFileSync(BUNDLED_RECORDINGS, JSON.stringify(entries, null, 2) + '\n');
  process.stdout.write(`wrote ${entries.length} recordings to ${BUNDLED_RECORDINGS}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`examples:record failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
