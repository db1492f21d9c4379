import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { candidateDigest, checkCandidate, loadManifest, readPointer, repoRoot, type CandidateDiff } from '@aoc/versioned-data';
import { builtinProposals, type ProposerInput } from './builtin-proposer';

const CATALOG = 'services/router/data/scenario-catalog.json';
const bundled = (path: string) => readFileSync(join(repoRoot(), path), 'utf8');

/** The bundled data, with the lock-contention scenario's signals replaced (as if they had never listed these words). */
function dataWithLockSignals(signals: string[]): (path: string) => string {
  const catalog = JSON.parse(bundled(CATALOG)) as { scenarios: Record<string, { signals: string[] }> };
  catalog.scenarios['lock-contention'].signals = signals;
  return (path) => (path === CATALOG ? JSON.stringify(catalog) : bundled(path));
}

const input = (over: Partial<ProposerInput>): ProposerInput => ({
  wantedFamily: 'lock_waits',
  ledFamilies: ['cpu'],
  manifest: loadManifest(),
  read: bundled,
  tried: new Set(),
  limit: 50,
  ...over,
});

const wordEdits = (diffs: CandidateDiff[]) => diffs.filter((d) => d.edits.some((e) => e.path === CATALOG));

describe('built-in proposer: signal words', () => {
  const texts = ['Checkout stalls since 14:05: lots of blocked queries on the orders table', 'Payments API: blocked queries pile up behind a long transaction'];

  it('adds the ticket\'s own word for the wanted family to the scenario that measures it, first when no target asked for that family', () => {
    const read = dataWithLockSignals(['deadlock*']);
    const diffs = builtinProposals(input({ read, ticketTexts: texts, wantedQueried: false }));
    const [first] = diffs;
    expect(first.edits).toEqual([expect.objectContaining({ path: CATALOG, pointer: '/scenarios/lock-contention/signals', value: ['deadlock*', 'blocked queries'] })]);
    expect(first.edits[0].because).toContain('2 failing ticket(s) say "blocked queries"');
    // The proposal is admissible as it stands.
    expect(checkCandidate(first, loadManifest(), read).ok).toBe(true);
  });

  it('tries the causal rules before words when the targets did ask for the family', () => {
    const diffs = builtinProposals(input({ read: dataWithLockSignals(['deadlock*']), ticketTexts: texts, wantedQueried: true }));
    expect(diffs[0].edits[0].path).toBe('services/router/data/family-rules.json');
    expect(wordEdits(diffs)).toHaveLength(1);
  });

  it('proposes no word the scenario already matches, none the tickets do not say, none for other families', () => {
    // "blocked*" already matches "blocked queries".
    expect(wordEdits(builtinProposals(input({ read: dataWithLockSignals(['blocked*']), ticketTexts: texts, wantedQueried: false })))).toEqual([]);
    expect(wordEdits(builtinProposals(input({ read: dataWithLockSignals(['deadlock*']), ticketTexts: ['The dashboard is slow today'], wantedQueried: false })))).toEqual([]);
    expect(wordEdits(builtinProposals(input({ read: dataWithLockSignals(['deadlock*']), ticketTexts: [], wantedQueried: false })))).toEqual([]);
    const forCpu = wordEdits(builtinProposals(input({ wantedFamily: 'cpu', ledFamilies: ['lock_waits'], read: dataWithLockSignals(['deadlock*']), ticketTexts: texts, wantedQueried: false })));
    expect(forCpu.every((d) => !d.edits[0].pointer.includes('lock-contention'))).toBe(true);
  });

  it('proposes the prefix form where the ticket inflects the word, so the router matches what the ticket says', () => {
    const diffs = wordEdits(builtinProposals(input({ wantedFamily: 'cpu', ledFamilies: [], ticketTexts: ['All VCPUs pegged since noon'], wantedQueried: false })));
    expect(diffs[0].edits[0]).toMatchObject({ pointer: '/scenarios/cpu-saturation/signals', value: expect.arrayContaining(['vcpu*']) });
    expect(diffs.flatMap((d) => d.edits[0].value as string[])).not.toContain('vcpu');
  });

  it('never repeats a tried candidate', () => {
    const read = dataWithLockSignals(['deadlock*']);
    const once = builtinProposals(input({ read, ticketTexts: texts, wantedQueried: false }));
    const again = builtinProposals(input({ read, ticketTexts: texts, wantedQueried: false, tried: new Set([candidateDigest(once[0])]) }));
    expect(again[0]).not.toEqual(once[0]);
    expect(readPointer(JSON.parse(read(CATALOG)), '/scenarios/lock-contention/signals')).toEqual(['deadlock*']);
  });
});
