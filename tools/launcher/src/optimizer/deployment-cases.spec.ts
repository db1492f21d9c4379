import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRecordings } from '@aoc/service-provider-executor';
import { startPlatform, type Platform } from '../embedded-platform';
import { OPTIMIZER_DEMO_RECORDINGS, OPTIMIZER_DEMO_TICKETS } from '../examples/example-series';
import { loadExample, runExample } from '../run-example';
import { childReplayPort } from './child-replay';
import { freezeDeploymentCases } from './deployment-cases';

/** A deployment's own answer versions as frozen cases: replaying the router's frozen request gives the published answer again. */
describe('frozen cases of a deployment', () => {
  let platform: Platform;
  let dir: string;

  beforeAll(async () => {
    platform = await startPlatform({ executor: { mode: 'replay', recordings: [...loadRecordings(), ...loadRecordings(OPTIMIZER_DEMO_RECORDINGS)], prometheusTargets: [] }, logLevel: 'error' });
    dir = mkdtempSync(join(tmpdir(), 'aoc-frozen-test-'));
  }, 120000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays a run from its stored request at its own cutoff and reproduces the published answer', async () => {
    const { accepted, summary } = await runExample(platform, loadExample(join(OPTIMIZER_DEMO_TICKETS, 'mysql-orders-1.json')), 90000, 'published');
    const frozen = await freezeDeploymentCases(platform.dataSource, dir);
    const file = frozen.caseFiles.get(accepted.runId) ?? '';
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ mode: 'read', trigger: 'replay', cutoff: '2026-11-24T14:40:00.000Z', ticket: { key: 'SUP-2401' } });
    expect(JSON.parse(readFileSync(frozen.recordingsFile, 'utf8'))).toEqual([]); // replay mode records nothing
    const [result] = await childReplayPort({ ticketFiles: frozen.caseFiles, recordings: [OPTIMIZER_DEMO_RECORDINGS, frozen.recordingsFile] }).replay([{ caseId: 'SUP-2401', role: 'target', ticketKey: 'SUP-2401', cutoff: null, runId: accepted.runId }], null);
    expect(result.error).toBeNull();
    expect(result.answer?.internalHandoffMarkdown).toBe(summary.internalHandoffMarkdown);
    expect(result.answer?.queriedFamilies).toEqual(expect.arrayContaining(['cpu', 'lock_waits']));
    // A run the deployment does not hold comes back as not executed, with the reason.
    const [missing] = await childReplayPort({ ticketFiles: frozen.caseFiles }).replay([{ caseId: 'X', role: 'target', ticketKey: 'SUP-0', cutoff: null, runId: 'run-20261201-deadbeef-000' }], null);
    expect(missing).toMatchObject({ answer: null, error: 'no frozen ticket for SUP-0' });
    // The proposer's word search reads the frozen ticket's title and description, nothing later.
    const port = childReplayPort({ ticketFiles: frozen.caseFiles });
    const text = port.ticketText?.({ caseId: 'SUP-2401', role: 'target', ticketKey: 'SUP-2401', cutoff: null, runId: accepted.runId });
    expect(text).toBe('Checkout API timing out on mysql-orders-1\nSince about 14:05 UTC our checkout requests to cluster mysql-orders-1 time out after 30 s. Nothing was deployed today. Please check the database.');
    expect(port.ticketText?.({ caseId: 'X', role: 'target', ticketKey: 'SUP-0', cutoff: null, runId: 'run-20261201-deadbeef-000' })).toBeNull();
  }, 120000);
});
