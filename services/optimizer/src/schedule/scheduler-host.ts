import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { RoleRuntime } from '@aoc/service-host';
import type { SlotDeps } from './optimizer-scheduler';
import type { Schedule } from './optimizer-schedule';
import { OptimizerScheduler } from './optimizer-scheduler';

/** Where the scheduled mode gets what the service cannot build itself: replays, the working copy, the data. */
export type SchedulerPorts = Omit<SlotDeps, 'transact'>;
export const SCHEDULER_OPTIONS = Symbol('SCHEDULER_OPTIONS');

/** Starts the scheduler with the service and stops it with the service. */
@Injectable()
export class SchedulerHost implements OnModuleInit, OnModuleDestroy {
  private readonly scheduler: OptimizerScheduler;

  constructor(runtime: RoleRuntime, ports: SchedulerPorts, schedule: Schedule) {
    this.scheduler = new OptimizerScheduler({ ...ports, transact: (work) => runtime.bus.transaction(work) }, schedule, (report) =>
      'error' in report
        ? runtime.logger.warn('optimizer slot failed', { slot: report.slot.slot, error: report.error })
        : runtime.logger.info('optimizer slot ran', { slot: report.slot.slot, outcomes: [...(report.verification ? [`verify:${report.verification.outcome}`] : []), ...report.steps.map((s) => `${s.step}:${s.outcome}`), ...(report.singleTicket?.jobs ?? []).map((j) => `single-ticket:${j.ticketKey}:${j.status}`)].join(' ') }),
    );
  }

  onModuleInit(): void {
    this.scheduler.start();
  }

  onModuleDestroy(): void {
    this.scheduler.stop();
  }
}
