import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinProposals, judgeCase, localDataAccess, type Criterion } from '@aoc/service-optimizer';
import { checkCandidate } from '@aoc/versioned-data';
import { BUNDLED_TICKETS } from '../examples/example-series';
import { childReplayPort } from './child-replay';

const EXAMPLE = join(BUNDLED_TICKETS, 'cpu-saturation.json');
const CATALOG = 'services/router/data/scenario-catalog.json';
const lead: Criterion = { id: 'lead-cpu', kind: 'leading_mechanism_family', family: 'cpu', requiredCapabilities: ['provider_evidence'] };

/**
 * The signal-word search on the real chain: the bundled cpu-saturation ticket reworded so that it
 * names the CPU only as "vcpu", an ontology word no scenario signal matches. Replayed with its
 * recorded evidence, the router falls back to the general health check; the built-in proposer
 * finds the word in the ticket and adds it to the scenario about CPU; replayed in a process that
 * reads the candidate's catalogue, the router selects that scenario.
 */
describe('signal words on a real replay', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'aoc-words-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('proposes the ticket\'s own word, and the replayed router reads it from the candidate\'s catalogue', async () => {
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { ticket: { key: string; title: string; description: string; labels: string[]; comments: unknown[] } };
    Object.assign(example.ticket, {
      key: 'SUP-9801',
      title: 'Every vcpu pegged on cluster tidb-analytics-21',
      description: 'Since about 14:00 UTC every vcpu on cluster tidb-analytics-21 is pegged. We did not deploy anything today. Please help.',
      labels: [],
      comments: [],
    });
    const file = join(dir, 'reworded.json');
    writeFileSync(file, JSON.stringify(example));
    const port = childReplayPort({ ticketFiles: new Map([['SUP-9801', file]]) });
    const request = { caseId: 'SUP-9801', role: 'target' as const, ticketKey: 'SUP-9801', cutoff: null, runId: 'run-20261121-00000000-001' };
    const replayed = async (overlay: ReadonlyMap<string, string> | null) => {
      const [result] = await port.replay([request], overlay);
      if (!result.answer) throw new Error(`the replay did not execute: ${result.error ?? ''}`);
      return { handoff: result.answer.internalHandoffMarkdown, status: judgeCase('SUP-9801', [lead], result.answer, result.execution).results[0].status };
    };

    const before = await replayed(null);
    expect(before.handoff).toContain('general-health via prometheus');

    const data = localDataAccess();
    const [proposal] = builtinProposals({ wantedFamily: 'cpu', ledFamilies: [], manifest: data.manifest, read: data.read, tried: new Set(), limit: 8, ticketTexts: [port.ticketText?.(request) ?? ''], wantedQueried: false });
    expect(proposal.edits).toEqual([expect.objectContaining({ path: CATALOG, pointer: '/scenarios/cpu-saturation/signals', value: expect.arrayContaining(['cpu', 'vcpu']) })]);
    const admitted = checkCandidate(proposal, data.manifest, data.read);
    if (!admitted.ok || !admitted.files) throw new Error('the policy refused the proposal');

    const after = await replayed(admitted.files);
    expect(after.handoff).toContain('cpu-saturation via prometheus');
    expect(after.handoff).not.toContain('general-health');
    // Still led by CPU: the gate would record it as preserved, not a regression.
    expect([before.status, after.status]).toEqual(['met', 'met']);
  }, 180000);
});
