// Pipeline benchmark, in-process part: the platform as `npm start` runs it (in-process broker,
// embedded PGlite), then bench/bus's in-process floors sized to the same number of messages.
import { startPlatform, type Platform } from '@aoc/launcher';
import { MEM, RUN_TAG, progress } from '../bus/config';
import { inProcessBus, inProcessFloor } from '../bus/in-process';
import { Cleanup, errorText, inPhase, releaseIfLate } from '../bus/phase';
import { MEM_PIPELINE, SETTLE_QUIET_MS } from './config';
import { drivePipeline } from './drive';
import { ChainObserver, OBSERVED_TOPICS } from './observer';
import { measureFloors, single, type Part } from './part';
import type { TicketCycle } from './tickets';

export async function startOrRelease(what: string, starting: Promise<Platform>): Promise<Platform> {
  return inPhase(what, (phase) => phase.wait(starting, 'startPlatform()')).catch((error: unknown) => {
    releaseIfLate(starting, (late) => late.stop());
    throw error;
  });
}

export async function inProcessPart(cycle: TicketCycle): Promise<Part> {
  const part: Part = { transport: 'in-process', notes: [], failures: [] };
  const cleanup = new Cleanup();
  try {
    progress('in-process pipeline: starting all six roles (in-process broker, embedded PGlite, built-in engine, replayed evidence)');
    const platform = await startOrRelease('start in-process platform', startPlatform({ logLevel: 'error' }));
    cleanup.add('stop in-process platform', () => platform.stop());
    const broker = platform.broker;
    if (!broker) throw new Error('the default platform has no in-process broker');
    const observer = new ChainObserver();
    const groupId = `aoc.bench-pipeline.${RUN_TAG}`;
    const member = broker.join(groupId, [...OBSERVED_TOPICS], async (raw) => observer.arrive(raw.topic, raw.value));
    cleanup.add('leave observer group', async () => broker.leave(groupId, member));
    part.pipeline = await drivePipeline({ transport: 'in-process', platform, observer, cycle, sizes: MEM_PIPELINE, settleQuietMs: SETTLE_QUIET_MS['in-process'] });
  } catch (error) {
    part.failures.push(`in-process pipeline: ${errorText(error)}`);
  } finally {
    // The floors run on an idle process: the platform is stopped first.
    await cleanup.runAll();
  }
  await measureFloors(part, MEM, [single(inProcessFloor), single(inProcessBus)]);
  return part;
}
