import { ConfigError, describeConfig } from '@aoc/config';
import { recordFixture } from '../../test/record-fixture';
import { FOCUS_STATUSES, STATUS_MEANING } from '../focus/focus-machine';
import type { FocusRow } from '../persistence/focus-store';
import { deliveryOnWrite, NotificationConfig, retryDelayMs, webhookFromEnv, webhookOrigin } from './notification-config';
import { focusTerminalNotification, notificationBody, notificationIdOf, OptimizerNotification, problemDecidedNotification, singleTicketResultNotification, subjectOf } from './notification-payload';

const at = new Date('2026-12-02T08:00:00.000Z');
const { record, candidate } = recordFixture('00000000abcd', ['SUP-1', 'SUP-2']);
const focus: Pick<FocusRow, 'focusId' | 'signature' | 'candidate' | 'tenants' | 'createdAt'> = { focusId: 'focus-00000000abcd', signature: candidate.signature, candidate, tenants: ['acme'], createdAt: '2026-12-01T04:00:00.000Z' };

/** The versioned payloads of the terminal results, their ids and the webhook's settings. */
describe('notification payloads', () => {
  it('describes a Focus that reached a final status, with an id of the Focus alone', () => {
    const n = focusTerminalNotification(focus, 'human_handoff', 'focus_human_handoff', 'the plan touches a protected path', at);
    expect(n).toEqual({
      format: 'auto-oncall-optimizer-notification',
      schemaVersion: 1,
      notificationId: notificationIdOf('focus.terminal', focus.focusId),
      kind: 'focus.terminal',
      occurredAt: at.toISOString(),
      tenants: ['acme'],
      links: { html: '/focuses/focus-00000000abcd', json: '/v1/focuses/focus-00000000abcd' },
      focus: {
        focusId: focus.focusId,
        signature: 'quality:lock_waits',
        status: 'human_handoff',
        outcome: 'focus_human_handoff',
        reason: 'the plan touches a protected path',
        meaning: STATUS_MEANING.human_handoff.meaning,
        problemStatement: candidate.problemStatement,
        blockingCriterionId: candidate.blockingCriterionId,
        targets: [
          { ticketKey: 'SUP-1', ref: 'sig_00000000abcd_SUP-1' },
          { ticketKey: 'SUP-2', ref: 'sig_00000000abcd_SUP-2' },
        ],
        controls: [],
        createdAt: focus.createdAt,
      },
    });
    expect(n.notificationId).toMatch(/^ntf-[0-9a-f]{24}$/);
    // The same result later (a resumed run) is the same id; another Focus is another.
    expect(focusTerminalNotification(focus, 'human_handoff', 'focus_human_handoff', 'again', new Date()).notificationId).toBe(n.notificationId);
    expect(notificationIdOf('focus.terminal', 'focus-00000000abce')).not.toBe(n.notificationId);
    expect(subjectOf(n)).toBe(focus.focusId);
    // Only final statuses are terminal results.
    for (const s of FOCUS_STATUSES.filter((x) => STATUS_MEANING[x].holdsSlot)) expect(() => focusTerminalNotification(focus, s, 'focus_created', 'r', at)).toThrow('must be a final status');
  });

  it('describes a decided problem with its record, ticket, change and verification evidence, one id per record and ref', () => {
    const ref = record.problems[0].ref;
    const evidence = { at: at.toISOString(), dataVersion: record.data.dataVersion, source: 'replay' as const, caseId: 'SUP-1', executed: true, blocking: 'met' as const, leadingFamily: 'lock_waits', detail: 'replayed at its cutoff' };
    const n = problemDecidedNotification(record, ref, 'optimized_verified', 'verification_passed', 'verified: lead-lock-waits is met', evidence, ['acme'], at);
    expect(n.kind).toBe('problem.decided');
    expect(n.problem).toMatchObject({ recordId: record.recordId, focusId: 'focus-00000000abcd', attempt: 1, ref, ticketKey: 'SUP-1', status: 'optimized_verified', event: 'verification_passed', dataVersion: record.data.dataVersion, changes: [{ surface: record.data.changes[0].surface, path: 'services/router/data/family-rules.json', pointer: '/deviationThreshold' }], verification: { source: 'replay', executed: true, blocking: 'met', leadingFamily: 'lock_waits', detail: 'replayed at its cutoff' } });
    expect(n.links).toEqual({ html: `/optimization-records/${record.recordId}`, json: `/v1/optimization-records/${record.recordId}` });
    expect(n.notificationId).toBe(notificationIdOf('problem.decided', `${record.recordId}/${ref}`));
    expect(problemDecidedNotification(record, record.problems[1].ref, 'ineffective', 'verification_failed', 'gap', null, ['acme'], at).notificationId).not.toBe(n.notificationId);
    expect(() => problemDecidedNotification(record, 'sig_other', 'ineffective', 'verification_failed', 'gap', null, [], at)).toThrow('is not a problem of');
  });

  it('defines the single-ticket result kind now, unused by the optimizer yet', () => {
    const n = singleTicketResultNotification({ jobId: 'stj-42', ticketKey: 'SUP-9', status: 'failed', outcome: 'replay_failed', reason: 'the fresh replay did not execute', finishedAt: at.toISOString() }, ['default'], at);
    expect(OptimizerNotification.parse(n)).toEqual(n);
    expect(n).toMatchObject({ kind: 'single_ticket.result', notificationId: notificationIdOf('single_ticket.result', 'stj-42'), job: { status: 'failed' } });
    expect(() => singleTicketResultNotification({ ...n.job, status: 'running' as never }, [], at)).toThrow();
  });

  it('sends compact JSON that parses back to the same notification, and refuses one out of schema', () => {
    const n = focusTerminalNotification(focus, 'retired', 'focus_retired', 'no confirmed improvement', at);
    const body = notificationBody(n);
    expect(body).toBe(JSON.stringify(n));
    expect(OptimizerNotification.parse(JSON.parse(body))).toEqual(n);
    expect(OptimizerNotification.safeParse({ ...n, schemaVersion: 2 }).success).toBe(false);
    expect(OptimizerNotification.safeParse({ ...n, notificationId: 'ntf-x' }).success).toBe(false);
    expect(OptimizerNotification.safeParse({ ...n, extra: 1 }).success).toBe(false);
  });
});

describe('webhook settings', () => {
  const url = 'https://hooks.example.com/open-apis/bot/v2/hook/TOKEN-IN-PATH';
  const secret = 'a-secret-of-32-characters-length';

  it('is off without a URL: results are recorded as not_configured', () => {
    expect(webhookFromEnv({})).toBeNull();
    expect(deliveryOnWrite({})).toBe('not_configured');
    expect(deliveryOnWrite({ AOC_OPTIMIZER_WEBHOOK_URL: '' })).toBe('not_configured');
    expect(deliveryOnWrite({ AOC_OPTIMIZER_WEBHOOK_URL: url })).toBe('pending');
  });

  it('reads the URL, secret, attempts, timeout and backoff, with defaults', () => {
    expect(webhookFromEnv({ AOC_OPTIMIZER_WEBHOOK_URL: url, AOC_OPTIMIZER_WEBHOOK_SECRET: secret })).toEqual({ url, secret, maxAttempts: 10, timeoutMs: 10_000, backoffMs: 30_000, backoffCapMs: 3_600_000, pollMs: 5_000 });
    expect(webhookFromEnv({ AOC_OPTIMIZER_WEBHOOK_URL: url, AOC_OPTIMIZER_WEBHOOK_SECRET: secret, AOC_OPTIMIZER_WEBHOOK_MAX_ATTEMPTS: '3', AOC_OPTIMIZER_WEBHOOK_TIMEOUT_MS: '500' })).toMatchObject({ maxAttempts: 3, timeoutMs: 500 });
    expect(webhookOrigin(url)).toBe('https://hooks.example.com');
  });

  it('names a bad key without ever printing the URL or the secret', () => {
    const fail = (env: Record<string, string>) => {
      try {
        webhookFromEnv(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).message;
      }
      throw new Error('no ConfigError');
    };
    expect(fail({ AOC_OPTIMIZER_WEBHOOK_URL: url })).toContain('AOC_OPTIMIZER_WEBHOOK_SECRET: is required with AOC_OPTIMIZER_WEBHOOK_URL');
    expect(fail({ AOC_OPTIMIZER_WEBHOOK_SECRET: secret })).toContain('AOC_OPTIMIZER_WEBHOOK_URL: is required');
    const short = fail({ AOC_OPTIMIZER_WEBHOOK_URL: url, AOC_OPTIMIZER_WEBHOOK_SECRET: 'short-secret' });
    expect(short).toContain('AOC_OPTIMIZER_WEBHOOK_SECRET: must be at least 16 characters');
    expect(short).not.toContain('short-secret');
    const badUrl = fail({ AOC_OPTIMIZER_WEBHOOK_URL: 'ftp://hooks.example.com/TOKEN-IN-PATH', AOC_OPTIMIZER_WEBHOOK_SECRET: secret });
    expect(badUrl).toContain('AOC_OPTIMIZER_WEBHOOK_URL');
    for (const message of [badUrl, short]) expect(message).not.toContain('TOKEN-IN-PATH');
    expect(fail({ AOC_OPTIMIZER_WEBHOOK_URL: url, AOC_OPTIMIZER_WEBHOOK_SECRET: secret, AOC_OPTIMIZER_WEBHOOK_BACKOFF_MS: '5000', AOC_OPTIMIZER_WEBHOOK_BACKOFF_CAP_MS: '1000' })).toContain('AOC_OPTIMIZER_WEBHOOK_BACKOFF_CAP_MS: must be at least');
    const parsed = NotificationConfig.parse({ AOC_OPTIMIZER_WEBHOOK_URL: url, AOC_OPTIMIZER_WEBHOOK_SECRET: secret });
    expect(describeConfig(NotificationConfig, parsed)).toMatchObject({ AOC_OPTIMIZER_WEBHOOK_URL: '***', AOC_OPTIMIZER_WEBHOOK_SECRET: '***', AOC_OPTIMIZER_WEBHOOK_MAX_ATTEMPTS: 10 });
  });

  it('backs off exponentially from the base up to the cap, longer when the receiver asks', () => {
    const w = { backoffMs: 1000, backoffCapMs: 10_000 };
    expect([1, 2, 3, 4, 5, 6, 60].map((n) => retryDelayMs(n, w))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(retryDelayMs(1, w, 5000)).toBe(5000);
    expect(retryDelayMs(1, w, 60_000)).toBe(10_000);
  });
});
