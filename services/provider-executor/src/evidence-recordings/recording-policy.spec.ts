import { executorOptionsFromEnv } from '../providers/executor-options';
import { DEFAULT_RECORDING_POLICY, recordsIn } from './recording-policy';

describe('recording policy (parsed at boot)', () => {
  it('records in live mode by default, bounded and with a retention', () => {
    const options = executorOptionsFromEnv({});
    expect(options.mode).toBe('live');
    expect(options.recording).toEqual({ enabled: true, maxRunBytes: 2 * 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024, retentionDays: 90 });
    expect(recordsIn(options.mode, options.recording)).toBe(true);
    // Options built in code without a policy (tests, the launcher) record too.
    expect(recordsIn('live')).toBe(true);
  });

  it('turns off only by an explicit setting, and never records in replay mode', () => {
    const off = executorOptionsFromEnv({ AOC_EVIDENCE_RECORDING: 'off' });
    expect(recordsIn(off.mode, off.recording)).toBe(false);
    expect(recordsIn('replay', DEFAULT_RECORDING_POLICY)).toBe(false);
    expect(recordsIn('record', { ...DEFAULT_RECORDING_POLICY, enabled: false })).toBe(true);
    expect(executorOptionsFromEnv({ AOC_EVIDENCE_RECORDING_RETENTION_DAYS: '14', AOC_EVIDENCE_RECORDING_MAX_RUN_BYTES: '65536' }).recording).toMatchObject({ retentionDays: 14, maxRunBytes: 65536 });
  });

  it.each([
    [{ AOC_EVIDENCE_RECORDING: 'maybe' }, 'AOC_EVIDENCE_RECORDING'],
    [{ AOC_EVIDENCE_RECORDING_RETENTION_DAYS: '0' }, 'AOC_EVIDENCE_RECORDING_RETENTION_DAYS'],
    [{ AOC_EVIDENCE_RECORDING_MAX_RUN_BYTES: 'lots' }, 'AOC_EVIDENCE_RECORDING_MAX_RUN_BYTES'],
    [{ AOC_EVIDENCE_RECORDING_MAX_TOTAL_BYTES: '10' }, 'AOC_EVIDENCE_RECORDING_MAX_TOTAL_BYTES'],
    [{ AOC_EVIDENCE_MODE: 'record', AOC_EVIDENCE_RECORDING: 'off' }, 'AOC_EVIDENCE_RECORDING'],
  ])('refuses %j naming the key', (env, key) => {
    expect(() => executorOptionsFromEnv(env)).toThrow(new RegExp(`${key}: `));
  });
});
