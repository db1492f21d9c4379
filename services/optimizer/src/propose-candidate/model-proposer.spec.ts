import { chatCompletion, startFakeModel, type FakeChatCompletionsServer } from '@aoc/agent-runtime/testing';
import { checkCandidate } from '@aoc/versioned-data';
import { localDataAccess } from '../run-focus/data-access';
import type { TriedCandidate } from './builtin-proposer';
import { modelProposer, paretoSet } from './model-proposer';

const RULES = 'services/router/data/family-rules.json';
const data = localDataAccess();
const tried = (value: number, perCase: TriedCandidate['perCase']): TriedCandidate => ({ diff: { edits: [{ path: RULES, pointer: '/deviationThreshold', value, because: 'x' }] }, perCase, feedback: `threshold ${value}` });

describe('model proposer (OpenAI-compatible, fake server)', () => {
  let server: FakeChatCompletionsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('keeps the best candidates per case, not one winner', () => {
    const a = tried(3, { A: 'met', B: 'gap' });
    const b = tried(2.5, { A: 'gap', B: 'met' });
    const worse = tried(4, { A: 'gap', B: 'gap' });
    expect(paretoSet([a, b, worse])).toEqual([a, b]);
  });

  it('sends the tunables, the wanted family and the Pareto set, and turns the reply into policy-checked candidates', async () => {
    const reply = { proposals: [{ edits: [{ path: RULES, pointer: '/drives/lock_waits', valueJson: '["active_sessions","cpu"]', because: 'locks drive cpu' }], rationale: 'combine' }, { edits: [{ path: RULES, pointer: '/deviationThreshold', valueJson: 'not json', because: 'x' }], rationale: 'bad' }] };
    const started = await startFakeModel('proposer', () => ({ status: 200, json: chatCompletion(JSON.stringify(reply)) }));
    server = started.server;
    const out = await modelProposer(started.runtime).propose({ wantedFamily: 'lock_waits', ledFamilies: ['cpu'], manifest: data.manifest, read: data.read, tried: new Set(), limit: 4, history: [tried(3, { A: 'met', B: 'gap' }), tried(4, { A: 'gap', B: 'gap' })], ticketTexts: ['SECRET-TICKET-WORDS'] });
    const sent = JSON.parse(started.server.requests[0].body.messages.at(-1)?.content ?? '{}') as { wantedFamily: string; tunables: { pointer: string; current: unknown }[]; paretoSet: unknown[] };
    expect(sent.wantedFamily).toBe('lock_waits');
    expect(sent.tunables.map((t) => t.pointer)).toEqual(expect.arrayContaining(['/drives', '/deviationThreshold']));
    expect(sent.tunables.find((t) => t.pointer === '/deviationThreshold')?.current).toBe(3.5);
    expect(sent.paretoSet).toHaveLength(1);
    // A word-lists map goes out as words and families per entry, without the scenarios' other texts; no ticket text at all.
    const catalog = sent.tunables.find((t) => t.pointer === '/scenarios')?.current as Record<string, Record<string, unknown>>;
    expect(catalog['lock-contention']).toEqual({ words: expect.arrayContaining(['deadlock*']), families: expect.arrayContaining(['lock_waits']) });
    expect(JSON.stringify(sent)).not.toContain('hypothesis');
    expect(JSON.stringify(sent)).not.toContain('SECRET-TICKET-WORDS');
    expect(checkCandidate(out[0], data.manifest, data.read).ok).toBe(true);
    // Text where a number belongs is kept as text, and the policy refuses it naming the tunable.
    expect(checkCandidate(out[1], data.manifest, data.read)).toMatchObject({ ok: false, code: 'CANDIDATE.INVALID', detail: expect.stringContaining('/deviationThreshold') });
  });

  it('fails on a reply that is not the schema, so the controller re-plans', async () => {
    const started = await startFakeModel('proposer', () => ({ status: 200, json: chatCompletion('{"ideas":"lower every threshold"}') }));
    server = started.server;
    await expect(modelProposer(started.runtime).propose({ wantedFamily: 'lock_waits', ledFamilies: ['cpu'], manifest: data.manifest, read: data.read, tried: new Set(), limit: 4 })).rejects.toThrow();
  });
});
