import { endsRun } from '../focus/focus-machine';
import { FocusController, type StepResult } from '../run-focus/focus-controller';
import { FocusIteration, type IterationDeps } from '../run-focus/focus-iteration';
import { RecordVerifier, type VerificationReport } from '../run-focus/record-verification';
import type { RepairPublisher } from '../single-ticket/ports';
import { SingleTicketLane, type LaneReport } from '../single-ticket/single-ticket-lane';
import { nextSlot, type PlannedSlot, type Schedule } from './optimizer-schedule';

/** What a slot needs: the Focus loop's ports, and the single-ticket lane's publisher when there is one. */
export type SlotDeps = IterationDeps & { publisher?: RepairPublisher };

export interface SlotReport {
  slot: PlannedSlot;
  /** Deployed optimisation records verified first (absent when none waited). */
  verification?: VerificationReport;
  steps: (StepResult & { step: 'select' | 'baseline' | 'iterate' })[];
  /** The single-ticket lane, after the Focus steps (at most three jobs a slot). */
  singleTicket?: LaneReport;
}

/**
 * The scheduled mode: at each slot, deployed optimisation records are verified first (their
 * problems' statuses read by selection); then the selection slot proposes and baselines a new problem
 * when no Focus is active or waiting; then every slot runs one attempt of the active Focus (the
 * daily limit and the lease apply). A step whose transition ends the run (a Focus just created)
 * ends the Focus steps: its first attempt starts at the next one. The single-ticket lane runs last
 * in every slot. A failing slot is reported and the next one still runs.
 */
export class OptimizerScheduler {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly deps: SlotDeps,
    private readonly schedule: Schedule,
    private readonly onSlot: (report: SlotReport | { slot: PlannedSlot; error: string }) => void = () => undefined,
  ) {}

  async runSlot(slot: PlannedSlot): Promise<SlotReport> {
    const report = await this.focusSteps(slot);
    return { ...report, singleTicket: await new SingleTicketLane(this.deps).run() };
  }

  private async focusSteps(slot: PlannedSlot): Promise<SlotReport> {
    const steps: SlotReport['steps'] = [];
    const verification = await new RecordVerifier(this.deps).verify();
    const verified = verification.outcome === 'nothing_to_verify' ? {} : { verification };
    const controller = new FocusController({ ...this.deps, rejectionLookbackDays: this.schedule.rejectionLookbackDays });
    if (slot.selects) {
      const selected = await controller.select();
      steps.push({ step: 'select', ...selected });
    }
    // A candidate selected now, or left selected by an earlier crash, gets its baseline.
    const baseline = await controller.baseline();
    if (baseline.outcome !== 'no_focus_candidate') steps.push({ step: 'baseline', ...baseline });
    if (endsRun(baseline.outcome)) return { slot, ...verified, steps };
    steps.push({ step: 'iterate', ...(await new FocusIteration(this.deps).iterate()) });
    return { slot, ...verified, steps };
  }

  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.stopped) return;
    const slot = nextSlot(this.deps.now(), this.schedule);
    // Timers are capped near 24.8 days; slots are at most a day apart.
    this.timer = setTimeout(() => {
      void this.runSlot(slot)
        .then((r) => this.onSlot(r))
        .catch((error: unknown) => this.onSlot({ slot, error: error instanceof Error ? error.message : String(error) }))
        .finally(() => this.arm());
    }, Math.max(0, slot.at.getTime() - this.deps.now().getTime()));
    this.timer.unref?.();
  }
}
