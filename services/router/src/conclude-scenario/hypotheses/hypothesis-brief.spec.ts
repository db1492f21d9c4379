import type { EvidenceFactV1 } from '@aoc/contracts';
import { familiesInText } from '@aoc/metric-ontology';
import { familySignals } from '../family-rules';
import { hypothesisBrief, testHypotheses } from './hypothesis-brief';
import { familyObservation } from './lead-observations';
import { familyPhrase, openEvidence } from './open-evidence';
import { signalState } from './signal-state';
import { at, flat, metric, thread } from './testing/hypothesis-facts';

// What the brief says once the modes are decided (the lead, what was ruled out, the observations
// under it) and which evidence the open-hypotheses question asks for next.

describe('hypotheses', () => {
  it('a limit nobody queried keeps connection exhaustion open (and asked for next) although the log shows no refusal', () => {
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 120, unit: 'lines', attributes: { source: 'logs' } };
    const connections = metric({ family: 'connections', shape: [22, 30, 40, 47, 55, 58, 58, 58, 58, 58, 58, 58], score: 9, shiftMinute: 5, prior: 12 });
    const open = testHypotheses(thread('general-health', [], true), [logsRead, connections]);
    const mode = open.hypotheses.find((h) => h.mode.id === 'connection-exhaustion');
    expect(mode?.verdict).toBe('undetermined');
    expect(mode?.promise).toBeGreaterThan(0);
    expect(openEvidence(open.hypotheses, open.context, [])?.families[0]).toBe('connection_limit');
    const limit = metric({ family: 'connection_limit', bad: 'down', shape: flat(60) });
    const decided = testHypotheses(thread('general-health', [], true), [logsRead, connections, limit]);
    expect(decided.lead?.mode.id).toBe('connection-exhaustion');
  });

  it('a mode one clause from a verdict is asked about first: once the log shows checkpoint warnings, write volume and disk I/O come before families no evidence points at', () => {
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 155, unit: 'lines', attributes: { source: 'logs' } };
    const warnings: EvidenceFactV1 = { queryId: 'logs', kind: 'event', subject: 'log pattern checkpoint', value: 32, unit: 'lines', attributes: { source: 'logs', pattern: 'checkpoint', firstAt: at(10) } };
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.01, 0.01, 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3], score: 9, shiftMinute: 10, prior: 0.01 });
    const open = testHypotheses(thread('latency-regression', ['statement_latency'], true), [logsRead, warnings, latency]);
    expect(open.hypotheses.find((h) => h.mode.id === 'checkpoint-storm')?.verdict).toBe('undetermined');
    const asked = openEvidence(open.hypotheses, open.context, [])?.families ?? [];
    // The checkpoint storm is one clause from a verdict: every way to measure its write burst ranks in the first batch.
    for (const f of ['wal', 'io_throughput']) expect(asked.indexOf(f)).toBeGreaterThanOrEqual(0);
    for (const f of ['wal', 'io_throughput']) expect(asked.indexOf(f)).toBeLessThan(6);
  });

  it('the brief names the mode, the deciding numbers, what was ruled out, and what would settle untested modes', () => {
    const facts = [
      metric({ family: 'connections', shape: [120, 150, 200, 300, 420, 480, 495, 499, 500, 500, 499, 500], score: 9, shiftMinute: 10, slope: 500 }),
      metric({ family: 'connection_limit', bad: 'down', shape: flat(500) }),
      metric({ family: 'lock_waits', shape: flat(2) }),
      metric({ family: 'cpu', unit: 'percent', shape: flat(35) }),
    ];
    const out = testHypotheses(thread('connection-exhaustion', ['connections', 'connection_limit']), facts);
    expect(out.lead?.mode.id).toBe('connection-exhaustion');
    const brief = hypothesisBrief({ ...out, lead: out.lead! }, { observations: ['o'], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] });
    expect(brief.leadingMechanism).toMatchObject({ mode: 'connection-exhaustion', family: 'connections' });
    expect(brief.leadingMechanism.statement).toMatch(/^Connection exhaustion: .*reached 500 .*100% of the connection limit of 500/);
    // CPU was measured and had headroom; lock contention could still show in the log, which was not read.
    expect(brief.counterObservations[0]).toBe('Ruled out CPU saturation from added load: CPU utilisation (cpu_metric) held 35% over the second half of the window, below the 90% that would matter.');
    expect(brief.undetermined.join(' ')).toMatch(/lock contention not tested: the database log was not read/);
    expect(brief.hypotheses?.[0]).toMatchObject({ mode: 'connection-exhaustion', verdict: 'confirmed' });
  });

  it('a load decided by its statement alone is over once the effects it had are back, and active while they are not', () => {
    const bulk: EvidenceFactV1 = { queryId: 'top', kind: 'top_item', subject: 'statement digest:cd', value: 60, unit: '%', attributes: { source: 'sql', family: 'statement_latency', digest: 'digest:cd', share: 60, statementType: 'UPDATE', rowsPerCall: 15000 } };
    const sessions = (tail: number[]) => metric({ family: 'active_sessions', shape: [1, 1, 1, 1, 1, 1, 5, 5, 5, 5, ...tail], score: 8, shiftMinute: 30, prior: 1 });
    const over = testHypotheses(thread('latency-regression', ['statement_latency']), [bulk, sessions([1, 1])]);
    expect(over.lead?.mode.id).toBe('batch-job');
    expect(over.lead?.recovered).toBe(true);
    const still = testHypotheses(thread('latency-regression', ['statement_latency']), [bulk, sessions([5, 5])]);
    expect(still.lead?.mode.id).toBe('batch-job');
    expect(still.lead?.recovered).toBe(false);
    // With no effect measured at all, a lifetime share never says the incident is over.
    expect(testHypotheses(thread('latency-regression', ['statement_latency']), [bulk]).lead?.recovered).toBe(false);
    // The recovery is told by what came back, never as if the statement share were a level.
    const brief = hypothesisBrief({ ...over, lead: over.lead! }, { observations: [], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] });
    expect(brief.leadingMechanism.statement).toMatch(/Active sessions was back near its usual level by the end of the window: the incident has recovered/);
    expect(brief.leadingMechanism.statement).not.toMatch(/It was back/);
    // What moved and came back is observed first, with where it ended.
    expect(brief.observations[0]).toMatch(/^Active sessions \(active_sessions_metric\): usually 1 \(the hour before the window\); .*1 at the end of the window\.$/);
  });

  it('a saturation ruled out names the peak that came and went, not only the level it settled at', () => {
    const cpu = metric({ family: 'cpu', metric: 'node_cpu_seconds_total', unit: 'percent', shape: [40, 40, 60, 74, 70, 50, 40, 40, 40, 40, 40, 40], score: 6, shiftMinute: 10, prior: 40 });
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.01, 0.01, 0.05, 0.06, 0.05, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01], score: 6, shiftMinute: 10, prior: 0.01 });
    const out = testHypotheses(thread('latency-regression', ['statement_latency']), [cpu, latency]);
    const line = out.hypotheses.find((h) => h.mode.id === 'cpu-load')?.deciding.join(' ') ?? '';
    expect(line).toMatch(/held 40% over the second half of the window and peaked at 74% at 09:55 UTC, below the 90% that would matter/);
  });

  it('the observations under a confirmed mode give one line per family that bears on it, with usual level, shape and end, and leave out series that neither moved nor bear on it', () => {
    const connections = [
      metric({ family: 'connections', metric: 'threads_connected', shape: [120, 150, 200, 300, 420, 480, 495, 499, 500, 500, 499, 500], score: 9, shiftMinute: 10, slope: 500, prior: 110 }),
      metric({ family: 'connections', metric: 'max_used_connections', shape: flat(500) }),
    ];
    const facts = [...connections, metric({ family: 'connection_limit', bad: 'down', shape: flat(500) }), metric({ family: 'uptime', metric: 'uptime_seconds', bad: 'down', shape: [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200] })];
    const out = testHypotheses(thread('connection-exhaustion', ['connections', 'connection_limit']), facts);
    const brief = hypothesisBrief({ ...out, lead: out.lead! }, { observations: ['uptime_seconds: peak 1200', 'statement digest:ab (SELECT) takes 70% of the statement time'], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] });
    expect(brief.observations[0]).toMatch(/^Database connections \((threads_connected|max_used_connections)\): usually .*; .*500/);
    expect(brief.observations.filter((o) => /^Database connections/.test(o))).toHaveLength(1);
    expect(brief.observations.join(' ')).not.toMatch(/uptime/i);
    // Something else that moved a lot is reported after what bears on the mode.
    const withCpu = testHypotheses(thread('connection-exhaustion', ['connections', 'connection_limit']), [...facts, metric({ family: 'cpu', unit: 'percent', shape: [22, 22, 22, 22, 22, 22, 75, 75, 75, 75, 75, 75], score: 9, shiftMinute: 30, prior: 22 })]);
    const observed = hypothesisBrief({ ...withCpu, lead: withCpu.lead! }, { observations: [], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] }).observations;
    expect(observed[0]).toMatch(/^Database connections/);
    expect(observed.join(' ')).toMatch(/CPU utilisation \(cpu_metric\): usually 22%/);
    // What another channel observed (a statement) keeps a place; the provider's metric lines do not repeat.
    expect(brief.observations).toContain('statement digest:ab (SELECT) takes 70% of the statement time');
  });

  it('an observation goes the way the series went, says "already at" only for a real head start, and leaves clocks to the events', () => {
    const role = signalState(familySignals([metric({ family: 'failover', metric: 'pg_settings_in_hot_standby', bad: 'both', shape: [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], score: 9, shiftMinute: 20, prior: 1 })])[0]);
    expect(familyObservation(role)).toMatch(/dropped to 0 from about 10:00 UTC/);
    const age = signalState(familySignals([metric({ family: 'transaction_age', unit: 'seconds', shape: [0.23, 15, 247, 547, 848, 1147, 1448, 1748, 2048, 2347, 2647, 2955], score: 9, shiftMinute: 5, slope: 3400, prior: 0 })])[0]);
    expect(familyObservation(age)).not.toMatch(/already at/);
    const boot = metric({ family: 'restarts', metric: 'node_boot_time_seconds', unit: 'seconds', shape: flat(1796000000), score: 9, prior: 1795875141 });
    const out = testHypotheses(thread('failover-restart', ['restarts']), [boot, metric({ family: 'failover', bad: 'both', shape: [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], score: 9, shiftMinute: 20, prior: 1 })]);
    expect(out.lead?.mode.id).toBe('failover');
    const observed = hypothesisBrief({ ...out, lead: out.lead! }, { observations: [], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] }).observations.join(' ');
    expect(observed).toMatch(/^Failover/);
    expect(observed).not.toMatch(/node_boot_time_seconds/);
  });
});

describe('the open-hypotheses question', () => {
  it('names each family in words that never ask again for a family already measured', () => {
    const measured = new Set(['statement_latency', 'locks', 'connections', 'iops', 'cpu']);
    for (const f of ['io_latency', 'lock_waits', 'connection_limit', 'iops_limit', 'io_credits', 'cpu_credits', 'transaction_age', 'replication_lag']) {
      const asked = familiesInText(familyPhrase(f, measured) ?? '').map((m) => m.family);
      expect([f, asked]).toEqual([f, [f]]);
    }
    // While locks are unread, "lock waits" asks for both.
    expect(familiesInText(familyPhrase('lock_waits') ?? '').map((m) => m.family).sort()).toEqual(['lock_waits', 'locks']);
  });
});
