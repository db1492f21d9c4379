import { createTenancy, TENANCY, type Principal } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FocusHarness, ScriptedReplay, TICKETS } from '../../test/focus-harness';
import { recordFixture } from '../../test/record-fixture';
import { CollectSignalsHandler, type PublishedAnswer } from '../collect-signals/collect-signals.handler';
import { focusById, focusesWith } from '../persistence/focus-store';
import { openFocus, transition } from '../persistence/focus-transition';
import { allNotifications } from '../persistence/notification-store';
import { allRecords, moveProblems, saveRecord, settleRecord } from '../persistence/record-store';
import { saveAnswerVersion } from '../persistence/signal-store';
import { FocusController } from '../run-focus/focus-controller';
import { FocusIteration } from '../run-focus/focus-iteration';
import { RecordVerifier } from '../run-focus/record-verification';
import { FocusDashboardController } from './focus-dashboard.controller';
import { NotificationsController } from './notifications.controller';
import { RecordPagesController } from './record-pages.controller';
import { RecordsController } from './records.controller';

/**
 * The optimizer's pages and JSON over real HTTP on the embedded Postgres: records (list, detail
 * with the gate table and the data diff), problem statuses, notifications with their delivery
 * status and each Focus's state diagram, for two tenants. A credential confined to one tenant
 * never sees the other's records, problems, notifications or Focuses; one of every tenant sees all.
 */
describe('optimizer pages and JSON (HTTP, embedded Postgres, two tenants)', () => {
  const h = new FocusHarness();
  let app: INestApplication;
  let base: string;
  const tenancy = createTenancy({ default: { ticketProjects: ['SUP'], targets: ['*'] }, globex: { ticketProjects: ['GLX'], targets: ['*'] } });
  const HOSTILE = '<script>alert("globex")</script>';
  let own: { focusId: string; recordId: string };
  let other: { focusId: string; recordId: string };
  const previousUrl = process.env['AOC_OPTIMIZER_WEBHOOK_URL'];

  async function get(path: string, tenant: string): Promise<{ status: number; type: string | null; body: string }> {
    const res = await fetch(base + path, { headers: { 'x-test-tenant': tenant } });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  }
  const json = async (path: string, tenant: string) => {
    const res = await get(path, tenant);
    expect(res.status).toBe(200);
    return JSON.parse(res.body) as Record<string, unknown>;
  };

  beforeAll(async () => {
    delete process.env['AOC_OPTIMIZER_WEBHOOK_URL'];
    await h.start();
    await h.seed();
    // Tenant `default` (SUP tickets): a Focus through to an accepted candidate, deployed and verified, then handed over.
    const replay = new ScriptedReplay();
    const deps = h.deps(replay);
    const controller = new FocusController(deps);
    await controller.select();
    await controller.baseline();
    expect((await new FocusIteration(deps).iterate()).outcome).toBe('candidate_enqueued');
    const [stored] = await allRecords(h.ds.manager);
    const run = { runId: 'run-20261201-deployed-001', ticketKey: TICKETS[0], tenant: 'default', mode: 'read', trigger: 'initial', publishedAt: '2026-12-01T05:00:00.000Z', cutoff: '2026-12-01T04:55:00.000Z', customerReplyMarkdown: 'x', internalHandoffMarkdown: 'y', decision: 'human_required', answerFingerprint: 'e'.repeat(64), clarificationSimulation: { required: false, requestedContext: [] }, dataVersion: stored.record.data.dataVersion } as PublishedAnswer;
    await new CollectSignalsHandler().onPublished(run, h.ctx());
    expect((await new RecordVerifier(deps).verify()).outcome).toBe('records_verified');
    const [active] = await focusesWith(h.ds.manager, 'active');
    await h.transact(({ manager: m }) => transition(m, active, 'focus_human_handoff', {}, new Date('2026-12-01T06:00:00Z'), 'a protected path'));
    own = { focusId: active.focusId, recordId: stored.record.recordId };

    // Tenant `globex` (GLX tickets), written with a webhook configured: a rejected Focus and a record whose problem was found ineffective.
    process.env['AOC_OPTIMIZER_WEBHOOK_URL'] = 'https://hooks.example.com/TOKEN';
    const glx = ['GLX-1', 'GLX-2'];
    for (const ticketKey of glx) await saveAnswerVersion(h.ds.manager, { runId: `run-${ticketKey}`, ticketKey, tenant: 'globex', answerFingerprint: 'f'.repeat(64), cutoff: null, publishedAt: '2026-12-01T00:00:00.000Z', decision: 'human_required', requestedContext: [], leadingFamily: null });
    const { record, candidate } = recordFixture('0000000091ab', glx);
    await h.transact(async ({ manager: m }) => {
      const focus = await openFocus(m, { focusId: 'focus-0000000091ab', focusDigest: 'focus:glx', signature: candidate.signature, candidate: { ...candidate, problemStatement: HOSTILE } }, new Date('2026-12-01T01:00:00Z'));
      await transition(m, focus, 'focus_candidate_rejected', {}, new Date('2026-12-01T02:00:00Z'), 'the baseline did not confirm the gap');
      await settleRecord(m, await saveRecord(m, record, ['globex'], new Date()), new Date());
      await moveProblems(m, record, [record.problems[0].ref], 'candidate', 'deployed_version_seen', 'deployed', new Date());
      await moveProblems(m, record, [record.problems[0].ref], 'optimized_unverified', 'verification_failed', 'ineffective: still leads with CPU', new Date());
    });
    other = { focusId: 'focus-0000000091ab', recordId: record.recordId };
    delete process.env['AOC_OPTIMIZER_WEBHOOK_URL'];

    const moduleRef = await Test.createTestingModule({
      controllers: [FocusDashboardController, RecordsController, RecordPagesController, NotificationsController],
      providers: [
        { provide: DATA_SOURCE, useValue: h.ds },
        { provide: TENANCY, useValue: tenancy },
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    // The auth guard (not mounted here) puts the caller on the request: a token confined to the header's tenant (`*`: every tenant).
    app.use((req: { principal?: Principal; headers: Record<string, string | undefined> }, _res: unknown, next: () => void) => {
      req.principal = { subject: 'token:t', role: 'viewer', tenant: req.headers['x-test-tenant'] ?? 'default', credential: 'api_token' };
      next();
    });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  }, 180000);

  afterAll(async () => {
    await app?.close();
    await h.stop();
    if (previousUrl === undefined) delete process.env['AOC_OPTIMIZER_WEBHOOK_URL'];
    else process.env['AOC_OPTIMIZER_WEBHOOK_URL'] = previousUrl;
  });

  it('writes one notification per terminal result, recorded not_configured without a webhook and pending with one, and never twice', async () => {
    const all = await allNotifications(h.ds.manager);
    expect(all.map((n) => `${n.kind} ${n.status} ${n.tenants.join(',')} ${n.subject.split('/')[0]}`).sort()).toEqual(
      [
        `focus.terminal not_configured default ${own.focusId}`,
        `focus.terminal pending globex ${other.focusId}`,
        ...TICKETS.map(() => `problem.decided not_configured default ${own.recordId}`),
        `problem.decided pending globex ${other.recordId}`,
      ].sort(),
    );
    expect(new Set(all.map((n) => n.notificationId)).size).toBe(all.length);
    // A second verification and a repeated move decide nothing again: no new notification.
    await new RecordVerifier(h.deps(new ScriptedReplay())).verify();
    const [stored] = (await allRecords(h.ds.manager)).filter((r) => r.record.recordId === own.recordId);
    await moveProblems(h.ds.manager, stored.record, [stored.record.problems[0].ref], 'optimized_unverified', 'verification_passed', 'again', new Date());
    expect(await allNotifications(h.ds.manager)).toHaveLength(all.length);
  });

  it('lists records and shows one with its problems, the data diff and the gate table, to its tenant only', async () => {
    const list = await get('/optimization-records', 'default');
    expect([list.status, list.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect(list.body).toContain(`href="/optimization-records/${own.recordId}"`);
    expect(list.body).not.toContain(other.recordId);
    expect((await get('/optimization-records', '*')).body).toContain(other.recordId);

    const page = await get(`/optimization-records/${own.recordId}`, 'default');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h2>Data diff</h2>');
    expect(page.body).toContain('<code>family_edges /drives</code>');
    expect(page.body).toContain('<code>/drives/lock_waits</code>');
    expect(page.body).toContain('<h2>Gate</h2>');
    expect(page.body).toMatch(/lead-lock-waits \(blocking\)<\/td><td><span class="gap">gap<\/span><\/td><td><span class="met">met<\/span><\/td><td>fixed/);
    expect(page.body.match(/<span class="optimized_verified">optimized_verified<\/span>/g)).toHaveLength(3);
    expect(page.body).toContain('<h2>Notifications</h2>');
    expect(page.body).toContain('not_configured');
    expect((await get(`/optimization-records/${other.recordId}`, 'default')).status).toBe(404);
    expect((await get(`/optimization-records/${own.recordId}`, 'globex')).status).toBe(404);
    expect((await get('/optimization-records/opt-<script>', '*')).status).toBe(404);
    expect((await json(`/v1/optimization-records`, 'globex')).records).toEqual([expect.objectContaining({ recordId: other.recordId })]);
    expect((await get(`/v1/optimization-records/${own.recordId}`, 'globex')).status).toBe(404);
  });

  it('serves the problem statuses, filtered by status, scoped to the tenant', async () => {
    const mine = (await json('/v1/problem-statuses', 'default')).problems as { recordId: string; ticketKey: string; status: string }[];
    expect(mine.map((p) => [p.recordId, p.ticketKey, p.status])).toEqual(TICKETS.map((t) => [own.recordId, t, 'optimized_verified']));
    const theirs = (await json('/v1/problem-statuses', 'globex')).problems as { ticketKey: string; status: string }[];
    expect(theirs.map((p) => [p.ticketKey, p.status])).toEqual([['GLX-1', 'ineffective'], ['GLX-2', 'candidate']]);
    expect(((await json('/v1/problem-statuses?status=ineffective', '*')).problems as unknown[]).length).toBe(1);
    expect(((await json('/v1/problem-statuses?status=ineffective', 'default')).problems as unknown[]).length).toBe(0);
    const bad = await get('/v1/problem-statuses?status=fixed', 'default');
    expect([bad.status, JSON.parse(bad.body)]).toEqual([400, expect.objectContaining({ code: 'OPTIMIZER.INVALID_PARAM', field: 'status' })]);
    expect((await get('/v1/problem-statuses?status=candidate&status=ineffective', 'default')).status).toBe(400);

    const page = await get('/problems', 'default');
    expect(page.status).toBe(200);
    for (const t of TICKETS) expect(page.body).toContain(`<td>${t}</td>`);
    expect(page.body).not.toContain('GLX-1');
    expect((await get('/problems', 'globex')).body).toContain('<td>GLX-1</td><td><code>sig_0000000091ab_GLX-1</code></td><td><code>quality:lock_waits</code></td><td><span class="ineffective">ineffective</span>');
  });

  it('serves the notifications with their delivery status, scoped to the tenant, never the webhook URL', async () => {
    const mine = (await json('/v1/notifications', 'default')) as { webhookConfigured: boolean; notifications: { notificationId: string; kind: string; status: string; subject: string; payload: { tenants: string[] } }[] };
    expect(mine.webhookConfigured).toBe(false);
    expect(mine.notifications.map((n) => n.status)).toEqual(['not_configured', 'not_configured', 'not_configured', 'not_configured']);
    expect(mine.notifications.every((n) => n.payload.tenants.join() === 'default')).toBe(true);
    const theirs = (await json('/v1/notifications', 'globex')) as typeof mine;
    expect(theirs.notifications.map((n) => `${n.kind} ${n.status}`).sort()).toEqual(['focus.terminal pending', 'problem.decided pending']);
    expect(((await json('/v1/notifications?status=pending', '*')).notifications as unknown[]).length).toBe(2);
    expect((await get('/v1/notifications?status=sent', 'default')).status).toBe(400);

    const one = theirs.notifications[0];
    expect(await json(`/v1/notifications/${one.notificationId}`, 'globex')).toMatchObject({ notificationId: one.notificationId, status: 'pending', attempts: 0 });
    expect((await get(`/v1/notifications/${one.notificationId}`, 'default')).status).toBe(404);
    expect((await get(`/notifications/${one.notificationId}`, 'default')).status).toBe(404);
    expect((await get('/v1/notifications/ntf-zz', 'default')).status).toBe(404);

    const page = await get('/notifications', 'default');
    expect([page.status, page.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.body).toContain('No webhook is configured in this process');
    expect(page.body).toContain(`href="/focuses/${own.focusId}"`);
    expect(page.body).not.toContain(other.focusId);
    const all = await get('/notifications', '*');
    for (const n of [...mine.notifications, ...theirs.notifications]) expect(all.body).toContain(n.notificationId);
    expect(all.body).not.toContain('TOKEN');
    const detail = await get(`/notifications/${one.notificationId}`, 'globex');
    expect(detail.status).toBe(200);
    expect(detail.body).toContain('Payload (as sent)');
    expect(detail.body).toContain('auto-oncall-optimizer-notification');
  });

  it('draws each Focus in the state machine with its current status and the path it took, to its tenant only', async () => {
    const state = await json(`/v1/focuses/${own.focusId}/state`, 'default');
    expect(state).toMatchObject({ focusId: own.focusId, status: 'human_handoff', final: true });
    expect((state.path as { outcome: string; inferred: boolean; reason: string | null }[]).map((s) => [s.outcome, s.inferred])).toEqual([
      ['focus_candidate_selected', false],
      ['focus_created', false],
      ['candidate_enqueued', false],
      ['focus_human_handoff', false],
    ]);
    expect((state.path as { reason: string | null }[]).at(-1)?.reason).toBe('a protected path');
    expect((await get(`/v1/focuses/${other.focusId}/state`, 'default')).status).toBe(404);
    expect((await json(`/v1/focuses/${other.focusId}/state`, 'globex')).path).toEqual([expect.objectContaining({ to: 'selected' }), expect.objectContaining({ outcome: 'focus_candidate_rejected', to: 'rejected' })]);

    const page = await get(`/focuses/${own.focusId}`, 'default');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<svg class="fsm"');
    expect(page.body).toContain('<g class="node current visited" data-status="human_handoff">');
    expect(page.body).toContain('<g class="node visited" data-status="active">');
    expect(page.body).toContain('<g class="node" data-status="rejected">');
    expect(page.body).toContain('<code>focus_human_handoff</code>');
    expect(page.body).toContain('<h2>Notifications</h2>');
    expect((await get(`/focuses/${other.focusId}`, 'default')).status).toBe(404);
    // The other tenant's page escapes its text.
    const theirs = await get(`/focuses/${other.focusId}`, 'globex');
    expect(theirs.body).toContain('&lt;script&gt;alert(&quot;globex&quot;)&lt;/script&gt;');
    expect(theirs.body).not.toContain(HOSTILE);
    expect((await focusById(h.ds.manager, other.focusId))?.status).toBe('rejected');
  });
});
