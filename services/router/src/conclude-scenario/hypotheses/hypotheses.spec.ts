import type { EvidenceFactV1 } from '@aoc/contracts';
import { evaluateCondition } from './conditions';
import { buildContext } from './evidence-context';
import { FAILURE_MODES, FailureModesData, explainsMode } from './failure-modes.data';
import type { Hypothesis } from './evaluate-modes';
import { chooseLead, ruledOut, testHypotheses } from './hypothesis-brief';
import { WINDOW, at, flat, metric, thread } from './testing/hypothesis-facts';

// Which modes the evidence confirms, refutes or leaves open, and which one leads. What the brief
// then says about them, and what is asked for next: hypothesis-brief.spec.ts.

/** A decided hypothesis of the catalogue mode `id`, to rank against others (only `o` differs). */
const hypothesis = (id: string, o: Partial<Hypothesis>): Hypothesis => ({ mode: FAILURE_MODES.find((m) => m.id === id)!, verdict: 'confirmed', deciding: ['d'], support: [], missing: [], score: 0.5, at: null, family: null, recovered: false, recoveredFamilies: [], explainedBy: null, magnitude: 0.5, state: false, named: false, families: [], fit: 1, promise: 0, openFamilies: [], nearVerdict: false, ...o });

describe('hypotheses', () => {
  it('CPU between 88 % and 94 % for the whole window is CPU saturation, not "nothing moved"', () => {
    const facts = [metric({ family: 'cpu', unit: 'percent', shape: [91, 88, 92, 94, 90, 93, 92, 91, 94, 92, 90, 93], prior: 91 }), metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.4) })];
    const out = testHypotheses(thread('cpu-saturation', ['cpu']), facts);
    expect(out.lead?.mode.id).toBe('cpu-load');
    expect(out.lead?.deciding[0]).toMatch(/CPU .* held 92% .*over the second half of the window/);
    expect(out.hypotheses.find((h) => h.mode.id === 'healthy')?.verdict).toBe('refuted');
  });

  it('a 900-fold rise of replica lag leads over a 25 % rise of write throughput, and the lag names its mode', () => {
    const facts = [
      metric({ family: 'replication_lag', unit: 'seconds', shape: [0.5, 0.5, 0.6, 20, 60, 120, 180, 240, 300, 360, 420, 450], score: 12, shiftMinute: 15, slope: 500, prior: 0.5 }),
      metric({ family: 'rows_written', unit: 'per_second', shape: [1000, 1000, 1010, 1250, 1250, 1240, 1250, 1260, 1250, 1240, 1250, 1250], score: 6, shiftMinute: 14, prior: 1000 }),
    ];
    const out = testHypotheses(thread('latency-regression', ['statement_latency', 'statement_rate'], true), facts);
    expect(out.lead?.mode.family).toBe('replication_lag');
    expect(out.lead?.mode.id).toBe('replication-lag-replica-capacity');
    // Rows written barely moved, but the WAL volume that would show a write burst was never asked for: open, not ruled out.
    const writes = out.hypotheses.find((h) => h.mode.id === 'replication-lag-write-volume');
    expect(writes?.verdict).toBe('undetermined');
    expect(writes?.missing.join(' ')).toMatch(/transaction log/);
    const walAbsent: EvidenceFactV1 = { queryId: 'wal', kind: 'count', subject: 'wal: series', value: 0, unit: null, attributes: { family: 'wal' } };
    const commitsAbsent: EvidenceFactV1 = { ...walAbsent, queryId: 'commits', subject: 'commits: series', attributes: { family: 'commits' } };
    const settled = testHypotheses(thread('latency-regression', ['statement_latency', 'statement_rate'], true), [...facts, walAbsent, commitsAbsent]);
    expect(settled.hypotheses.find((h) => h.mode.id === 'replication-lag-write-volume')?.verdict).toBe('refuted');
  });

  it('one reset connection in an hour is background noise, not a network fault; many are', () => {
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 300, unit: 'lines', attributes: { source: 'logs' } };
    const resets = (n: number): EvidenceFactV1 => ({ queryId: 'logs', kind: 'event', subject: 'log pattern connection', value: n, unit: 'lines', attributes: { source: 'logs', pattern: 'connection', firstAt: at(20) } });
    const traffic = metric({ family: 'network', unit: 'bytes_per_second', shape: flat(2e6), prior: 2e6 });
    const network = (n: number) => testHypotheses(thread('network', ['network']), [logsRead, traffic, resets(n)]).hypotheses.find((h) => h.mode.id === 'network');
    expect(network(1)?.verdict).toBe('refuted');
    expect(evaluateCondition({ kind: 'log', patterns: ['connection'], atLeast: 5 }, buildContext([logsRead, resets(1)], WINDOW, null))).toMatchObject({ result: 'fails', line: expect.stringMatching(/1 line of dropped or reset client connections .*fewer than the 5/) });
    expect(network(40)?.verdict).toBe('confirmed');
  });

  it('an incident whose metrics are back is over, even when a statement share (a lifetime total) decided the mode', () => {
    const cpu = metric({ family: 'cpu', unit: 'percent', shape: [40, 40, 41, 40, 42, 40, 100, 100, 99, 100, 45, 30], score: 9, shiftMinute: 30, prior: 40 });
    const statement: EvidenceFactV1 = { queryId: 'top', kind: 'top_item', subject: 'statement digest:ab', value: 91, unit: '%', attributes: { source: 'sql', family: 'statement_latency', digest: 'digest:ab', share: 91, statementType: 'SELECT' } };
    const over = testHypotheses(thread('cpu-saturation', ['cpu']), [cpu, statement]);
    expect(over.lead?.mode.id).toBe('cpu-statement');
    expect(over.lead?.recovered).toBe(true);
    const still = testHypotheses(thread('cpu-saturation', ['cpu']), [metric({ family: 'cpu', unit: 'percent', shape: [40, 40, 41, 40, 42, 40, 100, 100, 99, 100, 98, 100], score: 9, shiftMinute: 30, prior: 40 }), statement]);
    expect(still.lead?.recovered).toBe(false);
  });

  it('CPU that rose while the database served the same queries at the same speed is no database incident; with more queries it is added load', () => {
    const cpu = metric({ family: 'cpu', unit: 'percent', shape: [30, 35, 40, 45, 50, 55, 60, 70, 80, 90, 95, 97], score: 9, shiftMinute: 40, prior: 36 });
    const rows = metric({ family: 'rows_read', unit: 'per_second', shape: flat(1050), prior: 1040 });
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.0095), prior: 0.0095 });
    const sameWork = metric({ family: 'statement_rate', unit: 'per_second', shape: flat(267), prior: 267 });
    const out = testHypotheses(thread('alarm-check', [], true), [cpu, rows, latency, sameWork]);
    expect(out.lead?.mode.id).toBe('healthy');
    expect(out.lead?.deciding.join(' ')).toMatch(/query latency stayed near .*query rate stayed near/);
    expect(out.hypotheses.find((h) => h.mode.id === 'cpu-load')?.verdict).toBe('refuted');
    expect(ruledOut(out.lead as Hypothesis, out.hypotheses)).toEqual([expect.stringMatching(/^Ruled out CPU saturation from added load: query rate stayed near .*rows read stayed near/)]);
    const moreWork = metric({ family: 'statement_rate', unit: 'per_second', shape: [267, 267, 267, 267, 267, 267, 400, 420, 430, 440, 450, 460], score: 9, shiftMinute: 30, prior: 267 });
    const busier = testHypotheses(thread('alarm-check', [], true), [cpu, rows, latency, moreWork]);
    expect(busier.lead?.mode.id).not.toBe('healthy');
    expect(busier.hypotheses.find((h) => h.mode.id === 'cpu-load')?.verdict).toBe('confirmed');
  });

  it('a symptom that is bad when it rises and stayed at zero throughout is a healthy reading: slow queries at zero and the same traffic are a false alarm, whatever a session count did for a minute', () => {
    const slow = metric({ family: 'statement_latency', metric: 'mysql_global_status_slow_queries', unit: 'per_second', shape: flat(0), score: 0, prior: 0 });
    const rate = metric({ family: 'statement_rate', unit: 'per_second', shape: flat(6.5), prior: 6.5 });
    const sessions = metric({ family: 'active_sessions', shape: [1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1], score: 5, shiftMinute: 25, prior: 1 });
    const out = testHypotheses(thread('latency-regression', ['statement_latency']), [slow, rate, sessions]);
    expect(out.lead?.mode.id).toBe('healthy');
    expect(out.lead?.deciding.join(' ')).toMatch(/query latency \(mysql_global_status_slow_queries\) stayed at zero throughout the window/);
    // An activity at zero is nothing that stayed level: a zero query rate does not make a window healthy.
    const idle = buildContext([metric({ family: 'statement_rate', unit: 'per_second', bad: 'down', shape: flat(0), prior: 0 })], WINDOW, null);
    expect(evaluateCondition({ kind: 'steady', family: 'statement_rate', within: 0.2 }, idle).result).toBe('unknown');
    expect(evaluateCondition({ kind: 'steady', family: 'statement_latency', within: 0.2 }, buildContext([slow], WINDOW, null)).result).toBe('holds');
  });

  it('a replica lag that grows second for second with a query\'s age is that query holding replay, not a replica short of capacity', () => {
    const ramp = [2, 3, 170, 470, 770, 1070, 1370, 1670, 1970, 2270, 2570, 2880];
    const lag = metric({ family: 'replication_lag', unit: 'seconds', shape: ramp, score: 9, shiftMinute: 10, slope: 3350, prior: 1.6 });
    const writes = metric({ family: 'commits', unit: 'per_second', shape: flat(115), prior: 112 });
    const age = metric({ family: 'transaction_age', unit: 'seconds', shape: ramp.map((v) => v + 60), score: 9, shiftMinute: 5, slope: 3300, prior: 0 });
    const held = testHypotheses(thread('replication-lag', ['replication_lag']), [lag, writes, age]);
    expect(held.lead?.mode.id).toBe('replication-lag-replica-query');
    // The line that names the mechanism comes first, and the lag is told once, not as a rise, a climb and a level.
    expect(held.lead?.deciding[0]).toMatch(/they grew in step/);
    expect(held.lead?.deciding.filter((d) => /^replica lag/.test(d) && !/in step/.test(d))).toHaveLength(1);
    const capacity = held.hypotheses.find((h) => h.mode.id === 'replication-lag-replica-capacity');
    expect(capacity?.verdict).toBe('refuted');
    expect(capacity?.deciding[0]).toMatch(/replica lag grew by .* per hour while oldest open transaction grew by .* per hour.*: they grew in step/);
    // A short transaction that does not grow with the lag leaves the starved replica as the cause.
    const short = metric({ family: 'transaction_age', unit: 'seconds', shape: [1, 2, 1, 3, 90, 2, 1, 2, 1, 2, 1, 2], score: 3, prior: 1 });
    const starved = testHypotheses(thread('replication-lag', ['replication_lag']), [lag, writes, short]);
    expect(starved.lead?.mode.id).toBe('replication-lag-replica-capacity');
  });

  it('is never healthy while the symptom the scenario asks about left its usual level, however flat latency and traffic stayed', () => {
    const steady = [metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.3), prior: 0.3 }), metric({ family: 'statement_rate', unit: 'per_second', shape: flat(270), prior: 270 })];
    const lag = metric({ family: 'replication_lag', unit: 'seconds', shape: [0, 0, 0, 0, 0, 0, 30, 60, 90, 120, 150, 180], score: 9, shiftMinute: 30, prior: 0 });
    const out = testHypotheses(thread('replication-lag', ['replication_lag']), [...steady, lag]);
    expect(out.hypotheses.find((h) => h.mode.id === 'healthy')?.verdict).not.toBe('confirmed');
    expect(out.lead?.mode.id).not.toBe('healthy');
    expect(testHypotheses(thread('latency-regression', ['statement_latency']), steady).lead?.mode.id).toBe('healthy');
  });

  it('tests a mode the ticket did not point at when the log names its mechanism (temporary files behind "slow")', () => {
    const spills: EvidenceFactV1 = { queryId: 'logs', kind: 'event', subject: 'log pattern temp_file', value: 59, unit: 'lines', attributes: { source: 'logs', pattern: 'temp_file', firstAt: at(20) } };
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.3, 0.3, 0.3, 0.3, 1.2, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3], score: 9, shiftMinute: 20, prior: 0.3 });
    const own = testHypotheses(thread('latency-regression', ['statement_latency']), [latency]);
    expect(own.hypotheses.some((h) => h.mode.id === 'storage-full-temp')).toBe(false);
    // Tested on the evidence in hand: left open (free storage unread) it does not steer the next round.
    expect(testHypotheses(thread('latency-regression', ['statement_latency']), [latency, spills]).hypotheses.some((h) => h.mode.id === 'storage-full-temp')).toBe(false);
    const full = metric({ family: 'storage_free', unit: 'bytes', bad: 'down', shape: [900, 900, 900, 900, 400, 200, 50, 10, 5, 5, 5, 5].map((v) => v * 2 ** 20), score: 9, shiftMinute: 20, prior: 900 * 2 ** 20 });
    const surfaced = testHypotheses(thread('latency-regression', ['statement_latency']), [latency, spills, full]);
    expect(surfaced.hypotheses.find((h) => h.mode.id === 'storage-full-temp')).toMatchObject({ verdict: 'confirmed' });
  });

  it('a quiet window confirms only the healthy mode, and a missing family leaves its modes undetermined, never refuted', () => {
    const quiet = [metric({ family: 'cpu', unit: 'percent', shape: flat(30) }), metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.02) })];
    const out = testHypotheses(thread('alarm-check', [], true), quiet);
    expect(out.lead?.mode.id).toBe('healthy');
    expect(out.hypotheses.find((h) => h.mode.id === 'replication-lag-write-volume')?.verdict).toBe('undetermined');
  });

  it('a restart the executor reported is read once, and a promotion makes it a failover, with the restart as its effect', () => {
    const uptime = metric({ family: 'uptime', unit: 'seconds', bad: 'down', shape: [9000, 9300, 9600, 9900, 10200, 10, 300, 600, 900, 1200, 1500, 1800], shiftMinute: 25 });
    const restart: EvidenceFactV1 = { queryId: 'uptime', kind: 'event', subject: 'restart: uptime fell from 10200 to 10 at 10:05Z', value: 'restart', unit: null, attributes: { source: 'metrics', event: 'restart', family: 'uptime', at: at(25), metric: 'mysql_global_status_uptime', rule: 'uptime_starts_over' } };
    const ctx = buildContext([uptime, restart], WINDOW, null);
    expect(ctx.events.filter((e) => e.kind === 'restart')).toHaveLength(1);
    expect(testHypotheses(thread('failover-restart', ['uptime', 'restarts']), [uptime, restart]).lead?.mode.id).toBe('restart');
    const promoted: EvidenceFactV1 = { ...restart, subject: 'role_change: replica status vanished', value: 'role_change', attributes: { ...restart.attributes, event: 'role_change', rule: 'replica_status_rows' } };
    const out = testHypotheses(thread('failover-restart', ['uptime', 'restarts']), [uptime, restart, promoted]);
    expect(out.lead?.mode.id).toBe('failover');
    expect(out.hypotheses.find((h) => h.mode.id === 'restart')?.verdict).toBe('refuted');
  });

  it('a state leads on its rank; among changes only, the mode holding the earliest sustained change leads unless its change is dwarfed', () => {
    const limit = hypothesis('connection-exhaustion', { state: true, named: true, magnitude: 1, families: ['connections'] });
    const wal = hypothesis('checkpoint-storm', { magnitude: 0.6, families: ['checkpoints', 'wal'], family: 'checkpoints' });
    const load = hypothesis('batch-job', { magnitude: 0.5, families: ['rows_written'] });
    expect(chooseLead([limit, wal, load], 'rows_written')?.mode.id).toBe('connection-exhaustion');
    expect(chooseLead([wal, load], 'rows_written')?.mode.id).toBe('batch-job');
    expect(chooseLead([wal, load], 'wal')).toMatchObject({ family: 'wal' });
    expect(chooseLead([hypothesis('io-limit', { magnitude: 1, families: ['io_queue'] }), load], 'rows_written')?.mode.id).toBe('io-limit');
    expect(chooseLead([wal], 'network')).toBeNull();
    // A log line or a limit reached names its mechanism: it leads from below a bigger change, even some minutes after the symptom began.
    const refused = hypothesis('connection-exhaustion', { state: true, named: true, magnitude: 0.75, fit: 0.4, families: [] });
    expect(chooseLead([wal, refused], 'rows_written')?.mode.id).toBe('connection-exhaustion');
    // A level over a threshold is a state but names nothing: it leads only from the top.
    const hot = hypothesis('cpu-load', { state: true, magnitude: 0.9, fit: 1, families: ['cpu'] });
    expect(chooseLead([wal, hot], 'rows_written')).toBeNull();
    expect(chooseLead([hot, wal], 'rows_written')?.mode.id).toBe('cpu-load');
    // A tie on the same symptom goes to the mode whose evidence names its mechanism (a recovery-conflict line).
    const behind = hypothesis('replication-lag-replica-capacity', { state: true, score: 0.575, families: ['replication_lag'] });
    const conflict = hypothesis('replication-lag-replica-query', { state: true, named: true, score: 0.575, families: ['replication_lag', 'transaction_age'] });
    expect(chooseLead([behind, conflict], null)?.mode.id).toBe('replication-lag-replica-query');
    expect(chooseLead([behind, { ...conflict, score: 0.4 }], null)?.mode.id).toBe('replication-lag-replica-capacity');
    // The earliest change is in no confirmed mode: the top mode still leads when it shows in the scenario's own families.
    const lagging = hypothesis('replication-lag-replica-capacity', { families: ['replication_lag'] });
    expect(chooseLead([lagging], 'cpu')).toBeNull();
    expect(chooseLead([lagging], 'cpu', ['replication_lag'])?.mode.id).toBe('replication-lag-replica-capacity');
  });

  it('added writes explain lock waits; added reads do not', () => {
    const batch = FAILURE_MODES.find((m) => m.id === 'batch-job')!;
    expect(explainsMode(batch, 'lock-contention', ['rows_written'])).toBe(true);
    expect(explainsMode(batch, 'lock-contention', ['rows_read'])).toBe(false);
    expect(explainsMode(batch, 'cpu-load', ['rows_read'])).toBe(true);
    expect(() => FailureModesData.parse({ version: 'v', ranking: { magnitude: 0, coverage: 0, timing: 0, support: 0, order: 0 }, modes: [{ ...batch, explains: [{ mode: 'nope', when: ['rows_written'] }] }] })).toThrow(/unknown mode nope/);
  });

  it('a level that was already bad before the window but is twice as bad now is an incident that grew, not a standing condition', () => {
    const cond = { kind: 'level' as const, family: 'replication_lag' as const, over: 'sustained' as const, atLeast: 30 };
    const grew = evaluateCondition(cond, buildContext([metric({ family: 'replication_lag', unit: 'seconds', shape: [150, 180, 200, 240, 260, 300, 320, 325, 330, 320, 325, 330], prior: 148 })], WINDOW, null));
    expect(grew).toMatchObject({ result: 'holds', chronic: false, line: expect.stringMatching(/already at 148 s .* got 2\.2x worse/) });
    const standing = evaluateCondition(cond, buildContext([metric({ family: 'replication_lag', unit: 'seconds', shape: flat(160), prior: 148 })], WINDOW, null));
    expect(standing).toMatchObject({ result: 'holds', chronic: true, line: expect.stringMatching(/a standing condition/) });
  });

  it('a scenario whose own families were not measured is never healthy: the brief says the evidence is missing', () => {
    const others = [metric({ family: 'cpu', unit: 'percent', shape: flat(30) }), metric({ family: 'connections', shape: flat(120) })];
    const out = testHypotheses(thread('replication-lag', ['replication_lag']), others);
    expect(out.lead).toBeNull();
    expect(out.hypotheses.find((h) => h.mode.id === 'healthy')).toMatchObject({ verdict: 'undetermined', missing: ['no replica lag data for this target in the window'] });
  });

  it('a limit already reached in the hour before the window is a standing condition: it does not lead on its state', () => {
    const conn = metric({ family: 'connections', shape: flat(95), prior: 95 });
    const limit = metric({ family: 'connection_limit', bad: 'down', shape: flat(100) });
    const r = evaluateCondition({ kind: 'atLimit', family: 'connections', limit: 'connection_limit', ratio: 0.9 }, buildContext([conn, limit], WINDOW, null));
    expect(r).toMatchObject({ result: 'holds', chronic: true });
    expect(r.line).toMatch(/as high in the hour before the window .*a standing condition/);
    // A state whose onset is far from the symptom's does not lead on its own either.
    expect(chooseLead([hypothesis('restart', { state: true, fit: 0.3, magnitude: 0.8 }), hypothesis('deadlocks', { families: ['deadlocks'], magnitude: 0.6 })], 'deadlocks')?.mode.id).toBe('deadlocks');
  });

  it('a level threshold reads only series in the family unit, a limit is the largest of its family, and a count that moved by one is no change', () => {
    const switches = metric({ family: 'cpu', metric: 'node_context_switches_total', unit: 'per_second', shape: flat(4700) });
    expect(evaluateCondition({ kind: 'level', family: 'cpu', over: 'sustained', atLeast: 90 }, buildContext([switches], WINDOW, null)).result).toBe('unknown');
    const conns = metric({ family: 'connections', shape: flat(8) });
    const reserved = { ...metric({ family: 'connection_limit', metric: 'pg_settings_superuser_reserved_connections', bad: 'down', shape: flat(3) }), queryId: 'limit-a' };
    const max = { ...metric({ family: 'connection_limit', metric: 'pg_settings_max_connections', bad: 'down', shape: flat(100) }), queryId: 'limit-b' };
    expect(evaluateCondition({ kind: 'atLimit', family: 'connections', limit: 'connection_limit', ratio: 0.9 }, buildContext([conns, reserved, max], WINDOW, null))).toMatchObject({ result: 'fails', line: expect.stringMatching(/8% of the connection limit of 100/) });
    const threads = metric({ family: 'active_sessions', shape: [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2], score: 8, shiftMinute: 30, prior: 1 });
    expect(evaluateCondition({ kind: 'rise', family: 'active_sessions', factor: 1.5 }, buildContext([threads], WINDOW, null)).result).toBe('fails');
  });

  it('a weak or later finding does not explain away a firm one', () => {
    const conns = metric({ family: 'connections', shape: [10, 10, 10, 10, 30, 59, 59, 59, 59, 59, 59, 59], score: 9, shiftMinute: 20 });
    const limit = metric({ family: 'connection_limit', bad: 'down', shape: flat(60) });
    const uptime = metric({ family: 'uptime', unit: 'seconds', bad: 'down', shape: [100, 400, 700, 1000, 1300, 1600, 1900, 2200, 2500, 2800, 3100, 3400] });
    const loggedRestart: EvidenceFactV1 = { queryId: 'logs', kind: 'event', subject: 'log pattern restart', value: 1, unit: 'lines', attributes: { source: 'logs', pattern: 'restart', family: 'restarts', firstAt: at(5) } };
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 40, unit: 'lines', attributes: { source: 'logs' } };
    const out = testHypotheses(thread('failover-restart', ['uptime', 'restarts'], true), [conns, limit, uptime, loggedRestart, logsRead]);
    expect(out.hypotheses.find((h) => h.mode.id === 'connection-exhaustion')).toMatchObject({ verdict: 'confirmed', explainedBy: null });
    expect(out.lead?.mode.id).toBe('connection-exhaustion');
  });
});

