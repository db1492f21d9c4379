import { AocError, errorCodeOf } from '@aoc/errors';
import { TICKET_SOURCE, type TicketSource } from '@aoc/ticket-source';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { PublishedAnswer, WriteBackState } from '../persistence/run.entity';

/** The owner job whose comment a run writes back: one internal comment per run, ever. */
export const WRITE_BACK_JOB = 'final-response';

export function writeBackKey(runId: string): string {
  return `aoc:${runId}:${WRITE_BACK_JOB}`;
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

/**
 * Writes a run's answer back to its ticket as one internal comment, keyed by the run so a retry
 * or a second publish-read finds the comment instead of writing another. Retryable source errors
 * are thrown (the bus or the caller retries); permanent ones are returned as a failed state.
 */
@Injectable()
export class WriteBackService {
  constructor(@Optional() @Inject(TICKET_SOURCE) private readonly source: TicketSource | null = null) {}

  get configured(): boolean {
    return this.source !== null;
  }

  async write(runId: string, ticketKey: string, answer: PublishedAnswer): Promise<WriteBackState> {
    const idempotencyKey = writeBackKey(runId);
    const at = new Date().toISOString();
    if (!this.source) return { status: 'skipped', idempotencyKey, commentId: null, errorCode: 'TICKET_SOURCE.NOT_CONFIGURED', at };
    try {
      const result = await this.source.writeInternalComment({ ticketKey, idempotencyKey, body: writeBackBody(runId, answer).slice(0, 19000) });
      return { status: result.created ? 'written' : 'already_written', idempotencyKey, commentId: result.commentId, errorCode: null, at };
    } catch (error) {
      if (error instanceof AocError && error.retryable) throw error;
      return { status: 'failed', idempotencyKey, commentId: null, errorCode: errorCodeOf(error, 'TICKET_SOURCE.UNEXPECTED'), at };
    }
  }
}
