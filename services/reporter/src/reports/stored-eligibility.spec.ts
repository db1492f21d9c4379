import { storedEligibility } from './stored-eligibility';

describe('stored eligibility', () => {
  it('keeps the recorded value', () => {
    expect(storedEligibility('not_compared', 'JUDGE.HUMAN_ANSWER_EMPTY', 'human_answer_before_cutoff')).toBe('human_answer_before_cutoff');
  });

  it('derives it from verdict and abstention code for rows recorded before the field (or an unknown value)', () => {
    expect(storedEligibility('human_better', null, null)).toBe('compared');
    expect(storedEligibility('not_compared', 'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', null)).toBe('not_substantive');
    expect(storedEligibility('not_compared', 'JUDGE.SOMETHING_NEW', 'a_future_value')).toBe('undecided');
  });
});
