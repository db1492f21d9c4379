import { AocError, PermanentError, TransientError, errorCodeOf, isRetryable } from './aoc-error';

describe('AocError', () => {
  it('serialises with its code and run id', () => {
    const err = new PermanentError('EVIDENCE.PLAN_INVALID', 'query q1 is not read-only', { runId: 'run-1', details: { queryId: 'q1' } });
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      code: 'EVIDENCE.PLAN_INVALID',
      message: 'query q1 is not read-only',
      runId: 'run-1',
      retryable: false,
      details: { queryId: 'q1' },
    });
    expect(err.module).toBe('EVIDENCE');
    expect(err.name).toBe('PermanentError');
  });

  it('rejects codes that are not MODULE.REASON', () => {
    expect(() => new AocError('bad code', 'x')).toThrow('invalid error code');
  });

  it('classifies retryability by class', () => {
    expect(isRetryable(new TransientError('BUS.BROKER_UNAVAILABLE', 'x'))).toBe(true);
    expect(isRetryable(new PermanentError('BUS.SCHEMA_INVALID', 'x'))).toBe(false);
    expect(isRetryable(new Error('unknown'))).toBe(true);
    expect(errorCodeOf(new Error('x'))).toBe('INTERNAL.UNEXPECTED');
  });
});
