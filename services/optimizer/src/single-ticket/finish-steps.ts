import { recordById, settleRecords } from '../persistence/record-store';
import { moveJob, type SingleTicketJob } from '../persistence/single-ticket-store';
import { deployedData } from '../records/data-version';
import { RecordVerifier } from '../run-focus/record-verification';
import { latestAnswer, targetRequest } from './investigate-step';
import type { LaneDeps } from './ports';
import type { RepairState } from './repair-step';

/**
 * The last steps of a repair. Verifying: the job's record is verified exactly as every record is
 * (`RecordVerifier`, once its data version is deployed); verified moves on, ineffective goes to a
 * human, anything else waits. Publishing: the read replay on the deployed data is re-published
 * through the publisher port (idempotent by job id), then the job is `optimized_verified`.
 */

/** Returns a waiting reason when the job stays where it is. */
export async function verify(deps: LaneDeps, job: SingleTicketJob): Promise<string | null> {
  const recordId = (job.repair as RepairState).recordId ?? '';
  const statusOf = () =>
    deps.transact(async ({ manager: m }) => {
      await settleRecords(m, deps.now());
      return (await recordById(m, recordId))?.statuses[0] ?? null;
    });
  let status = await statusOf();
  if (status?.status === 'optimized_unverified') {
    await new RecordVerifier(deps).verify();
    status = await statusOf();
  }
  if (status?.status === 'optimized_verified') {
    await deps.transact(({ manager: m }) => moveJob(m, job, 'verifying', 'verification_passed', { reason: `verified: ${status.reason}` }, deps.now()));
    return null;
  }
  if (status?.status === 'ineffective') {
    await deps.transact(({ manager: m }) => moveJob(m, job, 'verifying', 'verification_failed', { reason: `verification_failed: ${status.reason}`, outcome: 'verification_failed' }, deps.now()));
    return null;
  }
  return status ? `${recordId} is ${status.status}: ${status.reason}` : `${recordId} has no problem status yet`;
}

export async function publish(deps: LaneDeps, job: SingleTicketJob): Promise<void> {
  const fail = (reason: string) => deps.transact(({ manager: m }) => moveJob(m, job, 'publishing', 'publish_failed', { reason: `publish_failed at publishing: ${reason}`, outcome: 'publish_failed' }, deps.now()));
  if (!deps.publisher) return void (await fail('no repair publisher is configured in this process'));
  const read = await deps.transact(async ({ manager: m }) => ({ answer: await latestAnswer(m, job.ticketKey), stored: await recordById(m, (job.repair as RepairState).recordId ?? '') }));
  if (!read.answer || !read.stored) return void (await fail('the answer or the record is gone'));
  const { record } = read.stored;
  const data = deployedData({ baseVersion: record.data.baseVersion, dataVersion: record.data.dataVersion, edits: record.data.changes.map((c) => ({ path: c.path, pointer: c.pointer, value: c.after, because: c.because })) }, deps.data);
  if (data.kind === 'missing') return void (await fail(data.reason));
  const [result] = await deps.replay.replay([targetRequest(read.answer)], data.kind === 'overlay' ? data.files : null);
  if (!result?.answer) return void (await fail(`the read replay on ${record.data.dataVersion} did not execute (${result?.error ?? 'no result'})`));
  try {
    const published = await deps.publisher.publish({ jobId: job.jobId, ticketKey: job.ticketKey, runId: read.answer.runId, answerFingerprint: read.answer.answerFingerprint, dataVersion: record.data.dataVersion, answer: result.answer });
    await deps.transact(({ manager: m }) => moveJob(m, job, 'publishing', 'published', { reason: `optimized_verified: ${record.recordId} verified on ${record.data.dataVersion}; re-published through ${deps.publisher?.target ?? '?'} (${published.detail})`, outcome: 'optimized_verified', publication: { ...published, target: deps.publisher?.target ?? null, dataVersion: record.data.dataVersion } }, deps.now()));
  } catch (error) {
    await fail(`${deps.publisher.target}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500));
  }
}
