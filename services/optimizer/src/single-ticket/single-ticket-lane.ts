import { answerVersionsOf } from '../persistence/signal-store';
import { feedAfter, feedHead } from '../persistence/candidate-feed';
import { cursorOf, jobById, openJob, openJobs, saveCursor, type OpenResult, type SingleTicketJob } from '../persistence/single-ticket-store';
import type { EntityManager } from 'typeorm';
import { publish, verify } from './finish-steps';
import { investigate } from './investigate-step';
import { isTerminal, type JobStatus } from './job-machine';
import { LANE_LIMITS, type LaneDeps } from './ports';
import { repair } from './repair-step';
import { ticketCommands, type JobTrigger } from './triggers';

/**
 * The single-ticket lane: takes new triggers from the optimizer-candidates feed with its persisted
 * cursor (no backfill on its first activation), then advances up to `LANE_LIMITS.jobsPerRun`
 * unfinished jobs step by step: investigation, repair, verification, publication. It never creates
 * or consumes a Focus. Each step is its own transaction and a conditional move of the job, so a
 * crash resumes at the step it stopped in and nothing is applied twice.
 */

export const FEED_CONSUMER = 'single-ticket-lane';

export interface JobProgress {
  jobId: string;
  ticketKey: string;
  status: JobStatus;
  outcome: string | null;
  reason: string;
}

export interface LaneReport {
  triggers: { created: number; joined: number; redelivered: number; activated: boolean };
  jobs: JobProgress[];
}

/** The tenant of a ticket: its latest answer version's (null when none is known). */
async function tenantOf(m: EntityManager, ticketKey: string): Promise<string | null> {
  return (await answerVersionsOf(m, ticketKey)).at(-1)?.tenant ?? null;
}

/** Opens the job of each `/ticket` comment of a timeline (called with the timeline's transaction). */
export async function enqueueTicketCommands(m: EntityManager, ticketKey: string, comments: Parameters<typeof ticketCommands>[0], at: Date): Promise<OpenResult[]> {
  const out: OpenResult[] = [];
  for (const trigger of ticketCommands(comments)) out.push(await openJob(m, ticketKey, await tenantOf(m, ticketKey), trigger, at));
  return out;
}

export class SingleTicketLane {
  constructor(private readonly deps: LaneDeps) {}

  /** New feed items become jobs (or join the ticket's open one); the cursor moves in the same transaction. */
  async collect(): Promise<LaneReport['triggers']> {
    return this.deps.transact(async ({ manager: m }) => {
      const counts = { created: 0, joined: 0, redelivered: 0, activated: false };
      const cursor = await cursorOf(m, FEED_CONSUMER);
      if (cursor === null) {
        await saveCursor(m, FEED_CONSUMER, await feedHead(m), this.deps.now());
        return { ...counts, activated: true };
      }
      const { items, next } = await feedAfter(m, cursor, LANE_LIMITS.feedPage);
      for (const s of items) {
        const trigger: JobTrigger = { kind: 'signal', ref: s.ref, signalKind: s.kind, signature: s.signature, statement: s.statement, runId: s.runId };
        counts[(await openJob(m, s.ticketKey, await tenantOf(m, s.ticketKey), trigger, this.deps.now())).kind] += 1;
      }
      await saveCursor(m, FEED_CONSUMER, next, this.deps.now());
      return counts;
    });
  }

  /** One run (a scheduler slot): collect, then advance the oldest unfinished jobs. */
  async run(limit: number = LANE_LIMITS.jobsPerRun): Promise<LaneReport> {
    const triggers = await this.collect();
    const open = await this.deps.transact(({ manager: m }) => openJobs(m, limit));
    const jobs: JobProgress[] = [];
    for (const job of open) jobs.push(await this.advance(job.jobId));
    return { triggers, jobs };
  }

  /** Advances one job until it is terminal or waits (for a deployment). */
  async advance(jobId: string): Promise<JobProgress> {
    for (let step = 0; step < 8; step += 1) {
      const job = await this.read(jobId);
      if (isTerminal(job.status)) return progress(job);
      const waiting = await this.step(job);
      if (waiting !== null) return { ...progress(await this.read(jobId)), reason: waiting };
    }
    return progress(await this.read(jobId));
  }

  private async read(jobId: string): Promise<SingleTicketJob> {
    const job = await this.deps.transact(({ manager: m }) => jobById(m, jobId));
    if (!job) throw new Error(`no single-ticket job ${jobId}`);
    return job;
  }

  /** Runs the job's current step; a reason when it waits. */
  private async step(job: SingleTicketJob): Promise<string | null> {
    if (job.status === 'queued' || job.status === 'investigating') await investigate(this.deps, job);
    else if (job.status === 'repairing') await repair(this.deps, job);
    else if (job.status === 'verifying') return verify(this.deps, job);
    else if (job.status === 'publishing') await publish(this.deps, job);
    return null;
  }
}

const progress = (j: SingleTicketJob): JobProgress => ({ jobId: j.jobId, ticketKey: j.ticketKey, status: j.status, outcome: j.outcome, reason: j.reason });
