import { Bus } from '@aoc/bus';
import { PermanentError, errorCodeOf } from '@aoc/errors';
import { BUS } from '@aoc/service-host';
import { TICKET_SOURCE, type TicketSource } from '@aoc/ticket-source';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { RunEntity, type PublishedAnswer, type WriteBackState } from '../persistence/run.entity';

/** The owner job whose comment runs write back: one internal comment per (ticket, job), updated in place by later runs. */
export const WRITE_BACK_JOB = 'final-response';

/** A claim older than this is taken to have died with its process. */
export const WRITE_CLAIM_MS = 120_000;

/** Stable per (ticket, owner job): a repeated write updates the same comment, never adds one. */
export function writeBackKey(ticketKey: string): string {
  return `aoc:${ticketKey}:${WRITE_BACK_JOB}`;
}

/** The internal comment: the suggested customer reply for Support to review, and the handoff. */
export function writeBackBody(runId: string, answer: PublishedAnswer): string {
  return [
    `**Auto-oncall analysis** (run ${runId}, decision \`${answer.decision}\`, answer ${answer.answerFingerprint.slice(0, 12)})`,
    '',
    '## Suggested customer reply (not sent)',
    '',
    answer.customerReplyMarkdown,
    '',
    '## Internal handoff',
    '',
    answer.internalHandoffMarkdown,
    '',
    'Reply with `/ao accept`, `/ao revise: <why>`, `/ao wrong: <why>` or `/ao human` to give feedback on this answer.',
  ].join('\n');
}

const DONE = new Set<WriteBackState['status']>(['written', 'updated', 'already_written']);

/** Who asks for the write: the write-mode worker, or Support through publish-read. */
export type WriteBackOrigin = 'write-mode' | 'publish-read';

/**
 * Writes a run's stored answer back to its ticket as one internal comment. The write is claimed
 * under the run's row lock (so two writers never both post) and made from the stored answer (so a
 * retry posts byte-identical text the source's idempotency key recognises). Source errors left
 * after the adapter's own retries are recorded as a failed state, never thrown at the caller's bus.
 */
@Injectable()
export class WriteBackService {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Optional() @Inject(TICKET_SOURCE) private readonly source: TicketSource | null = null,
  ) {}

  get configured(): boolean {
    return this.source !== null;
  }

  /**
   * Claims, writes and records the run's comment. Returns the stored state when it was already
   * written; the worker gets null when there is nothing for it to do, publish-read gets an error.
   */
  async writeRun(runId: string, origin: WriteBackOrigin, expected: { ticketKey: string; answerFingerprint: string } | null = null): Promise<{ run: RunEntity; state: WriteBackState } | null> {
    const claimed = await this.bus.transaction(async (uow) => {
      const run = await uow.manager.findOne(RunEntity, { where: { runId }, lock: { mode: 'pessimistic_write' } });
      const refuse = (code: string, message: string) => {
        if (origin === 'write-mode') return null;
        throw new PermanentError(code, message);
      };
      if (!run) return refuse('INTAKE.RUN_NOT_FOUND', `no run ${runId.slice(0, 128)}`);
      if (run.status !== 'published' || !run.answer) return refuse('INTAKE.RUN_NOT_PUBLISHED', `run ${runId} has not published an answer yet`);
      // publish-read names the issue and answer version it reviewed: a mismatch writes nothing.
      if (expected && expected.ticketKey !== run.ticketKey) return refuse('INTAKE.RUN_MISMATCH', `run ${runId} does not answer ${expected.ticketKey}`);
      if (expected && expected.answerFingerprint !== run.answerFingerprint) return refuse('INTAKE.RUN_MISMATCH', `run ${runId} published another answer version than ${expected.answerFingerprint.slice(0, 12)}`);
      if (!this.source) return refuse('TICKET_SOURCE.NOT_CONFIGURED', 'no ticket source is configured (AOC_TICKET_SOURCE); nothing can be written back');
      const state = run.writeBack;
      if (state && DONE.has(state.status)) return { run, state, claimed: false };
      const claimedByOther = state?.status === 'writing' && Date.now() - Date.parse(state.at) < WRITE_CLAIM_MS;
      const staleClaim = state?.status === 'writing' && !claimedByOther;
      // The worker takes a write-mode run's first write (or a dead claim); a failed write is left for publish-read.
      if (origin === 'write-mode' && state && !staleClaim) return null;
      if (claimedByOther || (origin === 'publish-read' && run.mode === 'write' && !state)) {
        return refuse('INTAKE.WRITE_IN_PROGRESS', `the internal comment of run ${runId} is being written; try again shortly`);
      }
      const writing: WriteBackState = { status: 'writing', idempotencyKey: writeBackKey(run.ticketKey), commentId: null, errorCode: null, at: new Date().toISOString() };
      await uow.manager.update(RunEntity, { runId }, { writeBack: writing });
      return { run, state: writing, claimed: true };
    });
    if (!claimed) return null;
    if (!claimed.claimed || !claimed.run.answer) return { run: claimed.run, state: claimed.state };
    const state = await this.write(runId, claimed.run.ticketKey, claimed.run.answer);
    await this.bus.transaction((uow) => uow.manager.update(RunEntity, { runId }, { writeBack: state }));
    return { run: claimed.run, state };
  }

  /** The source call alone: the ticket's one internal comment of this job, created or updated in place, verified by read-back. */
  async write(runId: string, ticketKey: string, answer: PublishedAnswer): Promise<WriteBackState> {
    const idempotencyKey = writeBackKey(ticketKey);
    const at = new Date().toISOString();
    if (!this.source) return { status: 'skipped', idempotencyKey, commentId: null, errorCode: 'TICKET_SOURCE.NOT_CONFIGURED', at };
    try {
      const result = await this.source.writeInternalComment({ ticketKey, idempotencyKey, body: writeBackBody(runId, answer).slice(0, 19000), replace: true });
      return { status: result.created ? 'written' : result.updated ? 'updated' : 'already_written', idempotencyKey, commentId: result.commentId, errorCode: null, at };
    } catch (error) {
      return { status: 'failed', idempotencyKey, commentId: null, errorCode: errorCodeOf(error, 'TICKET_SOURCE.UNEXPECTED'), at };
    }
  }
}
