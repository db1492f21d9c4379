// Pipeline benchmark: pushes tickets through a running platform (one at a time, then with a bounded
// number in flight) and measures each until its run.published is observed.
import { performance } from 'node:perf_hooks';
import type { Platform } from '@aoc/launcher';
import { TicketIntakeService } from '@aoc/service-router';
import { progress } from '../bus/config';
import type { TransportName } from '../bus/measure';
import { inPhase, sleep, type Phase } from '../bus/phase';
import type { PipelineSizes } from './config';
import { CHAIN_TOPICS, SIDE_TOPICS, sumOver, type ChainObserver } from './observer';
import type { TicketCycle } from './tickets';

export interface Ticket {
  runId: string;
  ticketKey: string;
  example: string;
  /** intake call -> run.published observed, ms */
  latency: number;
}

export interface PipelineResult {
  transport: TransportName;
  sizes: PipelineSizes;
  /** one at a time */
  unloaded: Ticket[];
  /** the throughput run */
  loaded: Ticket[];
  /** first intake call -> last run.published of the throughput run, ms */
  wallMs: number;
  /** messages per topic of the throughput run's tickets */
  perTopic: Map<string, number>;
  /** chain hops of the throughput run (the floor pushes this many messages) */
  chainMessages: number;
  sideMessages: number;
  /** this process during the throughput run */
  cpuMsPerTicket: number;
  elu: number;
}

export interface DriveOptions {
  transport: TransportName;
  platform: Platform;
  observer: ChainObserver;
  cycle: TicketCycle;
  sizes: PipelineSizes;
  settleQuietMs: number;
  /** runs after the throughput run and before messages are counted (Kafka: wait for every role group) */
  beforeTally?: () => Promise<void>;
}

export async function drivePipeline(options: DriveOptions): Promise<PipelineResult> {
  const { transport, observer, cycle, sizes } = options;
  const router = options.platform.roles.get('router');
  if (!router) throw new Error('the router role is not running');
  const intake = router.get(TicketIntakeService);

  const runOne = async (phase: Phase, what: string): Promise<Ticket> => {
    const { example, request } = cycle.take();
    const t0 = performance.now();
    const accepted = await phase.wait(intake.analyze(request), () => `intake of ${what} (${example})`);
    const at = await phase.wait(observer.publishedAt(accepted.runId), () => `run.published of ${what} (${example}, run ${accepted.runId})`);
    return { runId: accepted.runId, ticketKey: accepted.ticketKey, example, latency: at - t0 };
  };
  const sequential = (name: string, count: number): Promise<Ticket[]> =>
    inPhase(`${transport} pipeline ${name}`, async (phase) => {
      const out: Ticket[] = [];
      for (let i = 0; i < count; i++) out.push(await runOne(phase, `${name} ticket ${i + 1}/${count}`));
      return out;
    });

  progress(`${transport} pipeline: warm-up, ${sizes.warm} tickets one at a time`);
  await sequential('warm-up', sizes.warm);
  progress(`${transport} pipeline: unloaded latency, ${sizes.unloaded} tickets one at a time`);
  const unloaded = await sequential('unloaded', sizes.unloaded);

  progress(`${transport} pipeline: throughput, ${sizes.tickets} tickets, at most ${sizes.inFlight} in flight`);
  const cpuBefore = process.cpuUsage();
  const eluBefore = performance.eventLoopUtilization();
  const { loaded, wallMs } = await inPhase(`${transport} pipeline throughput`, async (phase) => {
    const done: Ticket[] = [];
    let started = 0;
    let failed = false;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (!failed && started < sizes.tickets) {
        const i = ++started;
        done.push(await runOne(phase, `ticket ${i}/${sizes.tickets} (${done.length} done)`));
      }
    };
    await Promise.all(Array.from({ length: Math.min(sizes.inFlight, sizes.tickets) }, worker)).catch((error: unknown) => {
      failed = true; // the other workers submit nothing more
      throw error;
    });
    return { loaded: done, wallMs: performance.now() - t0 };
  });
  const cpu = process.cpuUsage(cpuBefore);
  const elu = performance.eventLoopUtilization(eluBefore).utilization;

  await options.beforeTally?.();
  await inPhase(`${transport} pipeline settle`, async (phase) => {
    while (observer.quietFor() < options.settleQuietMs) await phase.wait(sleep(options.settleQuietMs / 4), 'chain topics to go quiet');
  });
  const perTopic = observer.tally(
    loaded.map((t) => t.runId),
    loaded.map((t) => t.ticketKey),
  );
  return {
    transport,
    sizes,
    unloaded,
    loaded,
    wallMs,
    perTopic,
    chainMessages: sumOver(perTopic, CHAIN_TOPICS),
    sideMessages: sumOver(perTopic, SIDE_TOPICS),
    cpuMsPerTicket: (cpu.user + cpu.system) / 1000 / sizes.tickets,
    elu,
  };
}
