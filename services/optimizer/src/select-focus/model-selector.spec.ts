import { chatCompletion, startFakeModel, type FakeChatCompletionsServer } from '@aoc/agent-runtime/testing';
import type { SignalSource } from '../collect-signals/signal-refs';
import { groupingDigest, targetSetKey, type ControlCandidate, type SelectableSignal } from './focus-selector';
import { admitModelSelection, modelSelector, type SelectionInput } from './model-selector';

const src = (ticket: string): SignalSource => ({ runId: `run-${ticket}`, answerFingerprint: 'a'.repeat(64), cutoff: null, ticketDigest: `t-${ticket}`, questionDigest: null, referenceComments: [] });
const signal = (ref: string, ticketKey: string, signature: string, kind: SelectableSignal['kind'] = 'ai_gap', statement = 'the human answer says something else'): SelectableSignal => ({
  ref,
  kind,
  ticketKey,
  source: src(ticketKey),
  statement,
  signature,
  coverage: kind === 'runtime' ? 'failed' : null,
  evaluationId: null,
  feedbackCommentId: null,
  unavailable: false,
});
const control = (ticketKey: string, leadingFamily: string, verdict: ControlCandidate['verdict'] = 'equivalent'): ControlCandidate => ({ ticketKey, source: src(ticketKey), verdict, aiGapCount: 0, leadingFamily });

// Two signals the signatures could not classify ("rows waiting on each other"), one classified under lock waits.
const input: SelectionInput = {
  signals: [
    signal('sig_a', 'SUP-1', 'quality:unclassified', 'ai_gap', 'the human answer says transactions were queued behind a long writer'),
    signal('sig_b', 'SUP-2', 'quality:unclassified', 'key_difference', 'the human answer says sessions were waiting on each other'),
    signal('sig_c', 'SUP-3', 'quality:lock_waits'),
    signal('sig_d', 'SUP-4', 'quality:cpu'),
    signal('sig_e', 'SUP-5', 'runtime:evidence:prometheus:PROVIDER.TIMEOUT', 'runtime'),
  ],
  controls: [control('SUP-9', 'lock_waits'), control('SUP-8', 'cpu')],
  rejected: new Set(),
};
const choice = (over: object = {}) => ({ kind: 'focus' as const, family: 'lock_waits', targetRefs: ['sig_a', 'sig_b', 'sig_c'], controlTickets: ['SUP-9'], rationale: 'queued writers are lock waits', ...over });

describe('model Focus selector (OpenAI-compatible, fake server)', () => {
  let server: FakeChatCompletionsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const selector = async (reply: unknown) => {
    const started = await startFakeModel('selector', () => ({ status: 200, json: chatCompletion(typeof reply === 'string' ? reply : JSON.stringify(reply)) }));
    server = started.server;
    return modelSelector(started.runtime);
  };

  it('groups unclassified signals under the family their statements describe, with deterministic criteria', async () => {
    const selection = await (await selector(choice())).select(input);
    expect(selection).toMatchObject({ kind: 'candidate', note: 'chosen by the model selector' });
    if (selection.kind !== 'candidate') throw new Error('no candidate');
    expect(selection.candidate).toMatchObject({ signature: 'quality:lock_waits', blockingCriterionId: 'lead-lock-waits', controls: [{ ticketKey: 'SUP-9' }] });
    expect(selection.candidate.targets.map((t) => t.ref)).toEqual(['sig_a', 'sig_b', 'sig_c']);
    expect(selection.candidate.groupingDigest).toBe(groupingDigest(['sig_a', 'sig_b', 'sig_c'], ['SUP-9']));
    // The model never sees runtime signals, secrets or answer texts: refs, kinds, signatures and bounded statements only.
    const sent = JSON.parse(server?.requests[0].body.messages.at(-1)?.content ?? '{}') as { signals: { ref: string }[] };
    expect(sent.signals.map((s) => s.ref)).toEqual(['sig_a', 'sig_b', 'sig_c', 'sig_d']);
  });

  it('refuses a choice the built-in rules would not admit, and falls back to the built-in grouping saying why', async () => {
    const relabel = await (await selector(choice({ targetRefs: ['sig_c', 'sig_d'] }))).select(input);
    // The built-in grouping has no narrow problem on two tickets here.
    expect(relabel).toMatchObject({ kind: 'none', reason: expect.stringContaining('sig_d is classified under cpu, not lock_waits') });
    await server?.close();
    const garbage = await (await selector('{"pick":"everything"}')).select({ ...input, signals: [...input.signals, signal('sig_f', 'SUP-6', 'quality:lock_waits')] });
    expect(garbage).toMatchObject({ kind: 'candidate', note: expect.stringContaining('the model failed') });
    if (garbage.kind === 'candidate') expect(garbage.candidate.targets.map((t) => t.ref)).toEqual(['sig_c', 'sig_f']);
  });

  it('takes the model\'s "none" as its decision', async () => {
    expect(await (await selector({ kind: 'none', reason: 'every signal is about a different mechanism' })).select(input)).toEqual({ kind: 'none', reason: 'the model found no narrow problem: every signal is about a different mechanism' });
  });
});

describe('admitting a model selection', () => {
  it('holds it to the built-in rules', () => {
    const refused = (over: object, from: SelectionInput = input) => {
      const out = admitModelSelection(choice(over), from);
      return 'refused' in out ? out.refused : null;
    };
    expect(refused({})).toBeNull();
    expect(refused({ family: 'disk_gremlins' })).toContain('not a metric family');
    expect(refused({ targetRefs: ['sig_a'] })).toContain('1 targets');
    expect(refused({ targetRefs: ['sig_a', 'sig_b', 'sig_c', 'sig_d', 'sig_e', 'sig_x'] })).toContain('6 targets');
    expect(refused({ targetRefs: ['sig_a', 'sig_e'] })).toContain('runtime signal');
    expect(refused({ targetRefs: ['sig_a', 'sig_x'] })).toContain('sig_x is not an open signal');
    expect(refused({}, { ...input, signals: input.signals.map((s) => (s.ref === 'sig_b' ? { ...s, unavailable: true } : s)) })).toContain('sig_b is not an open signal');
    expect(refused({ targetRefs: ['sig_a', 'sig_b2'] }, { ...input, signals: [...input.signals, signal('sig_b2', 'SUP-1', 'quality:lock_waits')] })).toContain('two targets on SUP-1');
    expect(refused({ controlTickets: ['SUP-8'] })).toContain('SUP-8 does not qualify');
    expect(refused({ controlTickets: ['SUP-3'] }, { ...input, controls: [...input.controls, control('SUP-3', 'lock_waits')] })).toContain('SUP-3 does not qualify');
    expect(refused({}, { ...input, rejected: new Set([groupingDigest(['sig_a', 'sig_b', 'sig_c'], ['SUP-9'])]) })).toContain('rejected by an earlier baseline');
    expect(refused({ controlTickets: [] }, { ...input, rejectedTargets: new Set([targetSetKey(['sig_c', 'sig_b', 'sig_a'])]) })).toContain('targets were rejected');
    expect(refused({ targetRefs: ['sig_a', 'sig_g'] }, { ...input, signals: [...input.signals, signal('sig_g', 'SUP-7', 'quality:broad')] })).toContain('too broad');
  });
});
