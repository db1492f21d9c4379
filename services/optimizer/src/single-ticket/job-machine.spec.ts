import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IllegalJobTransitionError, isTerminal, JOB_STATUS_MEANING, JOB_STATUSES, JOB_TRANSITIONS, jobStateDiagram, jobTransitionFor } from './job-machine';

describe('single-ticket job machine', () => {
  it('allows exactly the listed moves and refuses the rest', () => {
    expect(JOB_TRANSITIONS.map((t) => `${t.from} -${t.event}-> ${t.to}`)).toEqual([
      'none -job_created-> queued',
      'queued -investigation_started-> investigating',
      'queued -no_answer_yet-> failed',
      'investigating -finding_concluded-> concluded',
      'investigating -repair_selected-> repairing',
      'investigating -replay_failed-> failed',
      'repairing -repair_recorded-> verifying',
      'repairing -no_local_repair-> concluded',
      'repairing -protected_path-> human_handoff',
      'verifying -verification_passed-> publishing',
      'verifying -verification_failed-> human_handoff',
      'publishing -published-> optimized_verified',
      'publishing -publish_failed-> failed',
    ]);
    expect(() => jobTransitionFor('queued', 'repair_recorded')).toThrow(IllegalJobTransitionError);
    expect(() => jobTransitionFor('concluded', 'investigation_started')).toThrow(/cannot take investigation_started/);
  });

  it('ends every job succeeded or failed, and no terminal status moves again', () => {
    expect(JOB_STATUSES.filter(isTerminal)).toEqual(['concluded', 'optimized_verified', 'human_handoff', 'failed']);
    expect(JOB_STATUSES.filter(isTerminal).map((s) => JOB_STATUS_MEANING[s].result)).toEqual(['succeeded', 'succeeded', 'failed', 'failed']);
    for (const t of JOB_TRANSITIONS) if (t.from !== 'none') expect(isTerminal(t.from)).toBe(false);
    // Every non-terminal status can reach a terminal one.
    for (const s of JOB_STATUSES.filter((x) => !isTerminal(x))) expect(JOB_TRANSITIONS.some((t) => t.from === s)).toBe(true);
  });

  it('is the diagram docs/optimizer.md shows', () => {
    expect(readFileSync(join(__dirname, '../../../../docs/optimizer.md'), 'utf8')).toContain(jobStateDiagram());
  });
});
