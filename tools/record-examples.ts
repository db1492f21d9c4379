// `npm run examples:record`: runs every bundled example with the executor in record mode and
// writes the sanitised results to services/provider-executor/recordings/examples.json for replay.
// Prometheus examples query a real Prometheus (Debian package) holding their synthetic incident
// series; Clinic examples query the scripted Clinic API, whose metrics route proxies to such a
// Prometheus and whose TopSQL and slow-log routes answer the example's statements.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLINIC_TOKEN = 'examples-clinic-token';
const MANUS_TOKEN = 'glsa_examples_manus_token';
/** Instance references are sealed with a key of the recording run; a replay never opens them. */
const key = () => randomBytes(32).toString('base64url');

type Providers = typeof import('@aoc/providers/testing');
type ExecutorOptions = Partial<import('@aoc/service-provider-executor').ExecutorOptions>;
type Example = import('@aoc/launcher').RecordedExample;

/** The peers an example's package reads (besides its Prometheus) and the executor options that reach them. */
async function peersFor(example: Example, prometheusUrl: string, providers: Providers): Promise<{ executor: ExecutorOptions; stop: () => Promise<void> }> {
  if (example.clinic) {
    const clinic = await providers.startClinicFixture({
      token: CLINIC_TOKEN,
      cloudConfigToken: 'examples-cloud-config-token',
      metricsUpstream: prometheusUrl,
      clusters: [{ orgId: example.clinic.orgId, clusterId: example.clinic.clusterId, metadata: example.clinic.metadata, topsql: example.clinic.topsql, slowQueries: example.clinic.slowQueries }],
    });
    return { executor: { mode: 'record', recordings: [], prometheusTargets: [], clinic: { clinic: { baseUrl: clinic.baseUrl, token: CLINIC_TOKEN } } }, stop: () => clinic.stop() };
  }
  if (example.manus) {
    const proxy = await providers.startGrafanaProxy({ 'manus-ds': { authorization: `Bearer ${MANUS_TOKEN}`, upstream: prometheusUrl } });
    const manus = { targets: { [example.manus.target]: { grafanaOrigin: proxy.origin, datasourcePath: '/api/datasources/proxy/uid/manus-ds' } }, credential: { token: MANUS_TOKEN }, instanceRefKey: key() };
    return { executor: { mode: 'record', recordings: [], prometheusTargets: [], manus }, stop: () => proxy.stop() };
  }
  if (example.wetech) {
    const creds = providers.WETECH_TEST_CREDENTIALS;
    const grafana = creds['asia-production']?.grafana ?? creds.default.grafana;
    const proxy = await providers.startGrafanaProxy({ [example.wetech.datasourceUid]: { authorization: providers.basicAuthorization(grafana.username, grafana.password), upstream: prometheusUrl } });
    const dashboard = await providers.startTidbDashboard(example.wetech.dashboard());
    return {
      executor: {
        mode: 'record',
        recordings: [],
        prometheusTargets: [],
        wetech: { credentials: creds, instanceRefKey: key(), storageSealKey: key() },
        // The inventory's hosts, mapped to the local peers (the allowlist check still runs on the host).
        wetechResolveOrigin: (host: string) => (host.startsWith('grafana.') ? proxy.origin : dashboard.origin),
      },
      stop: async () => {
        await dashboard.stop();
        await proxy.stop();
      },
    };
  }
  return { executor: { mode: 'record', recordings: [], prometheusTargets: [{ name: example.target, baseUrl: prometheusUrl }] }, stop: () => Promise.resolve() };
}

async function main(): Promise<void> {
  const providers = await import('@aoc/providers/testing');
  const { startPlatform, loadExample, runExample } = await import('@aoc/launcher');
  const { BUNDLED_RECORDINGS, RecordingEntry } = await import('@aoc/service-provider-executor');
  const { RECORDED_EXAMPLES, OPTIMIZER_DEMO_EXAMPLES, OPTIMIZER_DEMO_RECORDINGS, OPTIMIZER_DEMO_TICKETS, BUNDLED_TICKETS } = await import('@aoc/launcher');
  // `--optimizer-demo` records the optimizer demo's tickets into their own file instead.
  const demo = process.argv.includes('--optimizer-demo');
  const examples = demo ? OPTIMIZER_DEMO_EXAMPLES : RECORDED_EXAMPLES;
  const ticketDir = demo ? OPTIMIZER_DEMO_TICKETS : BUNDLED_TICKETS;
  const output = demo ? OPTIMIZER_DEMO_RECORDINGS : BUNDLED_RECORDINGS;
  const all = new Map<string, ReturnType<typeof RecordingEntry.parse>>();
  for (const example of examples) {
    const prom = await providers.startPrometheus(example.series());
    const peers = await peersFor(example, prom.baseUrl, providers);
    const platform = await startPlatform({ executor: peers.executor });
    try {
      const { accepted, summary } = await runExample(platform, loadExample(join(ticketDir, example.ticketFile)));
      const rows: { entry: unknown }[] = await platform.dataSource.query(`SELECT "entry" FROM "provider_executor"."evidence_recordings" ORDER BY "key"`);
      for (const row of rows) {
        const entry = RecordingEntry.parse(row.entry);
        all.set(entry.key, entry);
      }
      process.stdout.write(`${example.ticketFile}: run ${accepted.runId}, evidence ${summary.evidenceStatus}, ${rows.length} recorded results\n`);
    } finally {
      await platform.stop();
      await peers.stop();
      await prom.stop();
    }
  }
  const entries = [...all.values()].sort((a, b) => a.key.localeCompare(b.key));
  writeFileSync(output, JSON.stringify(entries, null, 2) + '\n');
  process.stdout.write(`wrote ${entries.length} recordings to ${output}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`examples:record failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
