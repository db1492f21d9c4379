import type { EvidenceFactV1 } from '@aoc/contracts';
import { testHypotheses } from './hypothesis-brief';
import { at, flat, metric, thread } from './testing/hypothesis-facts';

// Temporary-file spills read before the volume is full: the sorts writing temp files at the same
// traffic are the mechanism, free storage dipping while they run is their footprint, and the slow
// statement they belong to is their effect, not a plan regression of its own.

const MiB = 2 ** 20;
const spills = (lines: number): EvidenceFactV1 => ({ queryId: 'logs', kind: 'event', subject: 'log pattern temp_file', value: lines, unit: 'lines', attributes: { source: 'logs', pattern: 'temp_file', firstAt: at(20) } });
const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 80, unit: 'lines', attributes: { source: 'logs' } };
const slower = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.3, 0.3, 0.3, 0.3, 1.2, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3], score: 9, shiftMinute: 20, prior: 0.3 });
const sameTraffic = metric({ family: 'statement_rate', unit: 'per_second', shape: [270, 271, 269, 270, 272, 271, 270, 264, 261, 273, 272, 270], prior: 269 });
const oneStatement: EvidenceFactV1 = { queryId: 'top', kind: 'top_item', subject: 'statement digest:2dbc', value: 95, unit: '%', attributes: { source: 'sql', family: 'statement_latency', digest: 'digest:2dbc', share: 95, statementType: 'SELECT' } };
/** Free space of a 48 MiB volume: a fifth of it taken while the sorts run, never near empty. */
const dipping = metric({ family: 'storage_free', unit: 'bytes', bad: 'down', shape: [48, 48, 48, 48, 44, 40, 39.6, 39.6, 38.7, 40, 39.2, 38.7].map((v) => v * MiB), score: 6, shiftMinute: 20, prior: 48 * MiB });
const capacity = metric({ family: 'storage_capacity', unit: 'bytes', shape: flat(48 * MiB), prior: 48 * MiB });

describe('temporary-file spills', () => {
  it('temp files written while free storage falls (far from empty) lead over the plan regression their slow statement looks like', () => {
    const out = testHypotheses(thread('latency-regression', ['statement_latency']), [logsRead, spills(59), slower, sameTraffic, oneStatement, dipping, capacity]);
    const temp = out.hypotheses.find((h) => h.mode.id === 'storage-full-temp');
    expect(temp).toMatchObject({ verdict: 'confirmed' });
    expect(temp?.deciding.join(' ')).toMatch(/free storage .*fell/);
    expect(out.lead?.mode.id).toBe('storage-full-temp');
    expect(out.hypotheses.find((h) => h.mode.id === 'plan-regression')).toMatchObject({ explainedBy: 'storage-full-temp' });
  });

  it('without the dip in free storage the spills alone name nothing, and the slow statement stays a plan regression', () => {
    const out = testHypotheses(thread('latency-regression', ['statement_latency']), [logsRead, spills(59), slower, sameTraffic, oneStatement, metric({ family: 'storage_free', unit: 'bytes', bad: 'down', shape: flat(48 * MiB), prior: 48 * MiB }), capacity]);
    expect(out.hypotheses.find((h) => h.mode.id === 'storage-full-temp')?.verdict).not.toBe('confirmed');
    expect(out.lead?.mode.id).toBe('plan-regression');
  });

  it('free storage falling without temp files is no spill (data growth reads as such)', () => {
    const out = testHypotheses(thread('storage-full', ['storage_free']), [logsRead, dipping, capacity]);
    expect(out.hypotheses.find((h) => h.mode.id === 'storage-full-temp')?.verdict).not.toBe('confirmed');
  });
});
