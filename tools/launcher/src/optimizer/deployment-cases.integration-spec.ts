import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrometheus, type RunningPrometheus } from '@aoc/providers/testing';
import { startPlatform, type Platform } from '../embedded-platform';
import { OPTIMIZER_DEMO_EXAMPLES, OPTIMIZER_DEMO_TICKETS } from '../examples/example-series';
import { loadExample, runExample } from '../run-example';
import { childReplayPort } from './child-replay';
import { freezeDeploymentCases } from './deployment-cases';

/**
 * A live deployment with no recording setting: its executor keeps what each run fetched, so the
 * run freezes into a case that replays from the deployment's own recordings alone (no bundled
 * file), without PROVIDER.REPLAY_MISS, and gives the published answer again.
 */
describe('a live deployment run as a frozen case (real Prometheus)', () => {
  const example = OPTIMIZER_DEMO_EXAMPLES[0];
  let prom: RunningPrometheus;
  let platform: Platform;
  let dir: string;

  beforeAll(async () => {
    prom = await startPrometheus(example.series());
    // Live mode as a deployment runs it: no AOC_EVIDENCE_RECORDING, so recording is on by default.
    platform = await startPlatform({ executor: { mode: 'live', recordings: [], prometheusTargets: [{ name: example.target, baseUrl: prom.baseUrl }] }, logLevel: 'error' });
    dir = mkdtempSync(join(tmpdir(), 'aoc-frozen-live-'));
  }, 120000);
  afterAll(async () => {
    await platform?.stop();
    await prom?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays the recorded run at its cutoff without a replay miss', async () => {
    const { accepted, summary } = await runExample(platform, loadExample(join(OPTIMIZER_DEMO_TICKETS, example.ticketFile)), 90000, 'published');
    const frozen = await freezeDeploymentCases(platform.dataSource, dir);
    const recorded = JSON.parse(readFileSync(frozen.recordingsFile, 'utf8')) as unknown[];
    expect(recorded.length).toBeGreaterThan(0);
    const [result] = await childReplayPort({ ticketFiles: frozen.caseFiles, recordings: [frozen.recordingsFile] }).replay([{ caseId: 'SUP-2401', role: 'target', ticketKey: 'SUP-2401', cutoff: null, runId: accepted.runId }], null);
    expect(result.error).toBeNull();
    expect(result.execution.providerCapability).toBe('verified');
    expect(result.answer?.internalHandoffMarkdown).toBe(summary.internalHandoffMarkdown);
    expect(result.answer?.internalHandoffMarkdown).not.toContain('REPLAY_MISS');
  }, 180000);
});
