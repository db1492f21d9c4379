import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceDataSource } from '@aoc/persistence';
import { migrateRole } from '@aoc/service-host';
import type { DataSource } from 'typeorm';
import { recordFixture } from '../../test/record-fixture';
import { optimizerDefinition } from '../optimizer.definition';
import { openFocus, transition } from '../persistence/focus-transition';
import { enqueueNotification, notificationById, notificationsAbout, type StoredNotification } from '../persistence/notification-store';
import { moveProblems, saveRecord, settleRecord } from '../persistence/record-store';
import type { Webhook } from './notification-config';
import { focusTerminalNotification, type OptimizerNotification } from './notification-payload';
import { WebhookSender } from './webhook-sender';
import { verifyWebhook, WEBHOOK_HEADERS } from './webhook-signature';

/**
 * The webhook end to end on real Postgres, against a receiver on 127.0.0.1 that does what the
 * docs ask of one (checks the signature on the raw body and the timestamp, drops ids it already
 * accepted) and misbehaves on purpose: it fails a notification's first attempts, holds one
 * attempt past the sender's timeout (and accepts it late), always fails another, and the sender
 * dies once between a POST the receiver accepted and its mark. Every result is still accepted
 * exactly once, the failing one is given up with its error kept, and a result written without a
 * webhook is recorded `not_configured` and never sent.
 */
describe('optimizer notifications over a webhook (real Postgres, local receiver)', () => {
  const secret = 'integration-secret-of-32-chars!!';
  const unique = (Date.now() * 1000 + Math.floor(Math.random() * 1000)).toString(16).padStart(12, '0').slice(-12);
  const quiet = `${unique.slice(0, 11)}${((parseInt(unique.slice(-1), 16) + 1) % 16).toString(16)}`;
  let ds: DataSource;
  let server: Server;
  let url: string;
  const previous = process.env['AOC_OPTIMIZER_WEBHOOK_URL'];

  /** What the receiver saw: every request, and the ids it accepted (once each). */
  const requests: { id: string; attempt: number; at: number; outcome: 'accepted' | 'duplicate' | 'failed' | 'held' | 'unsigned' }[] = [];
  const accepted = new Map<string, number>();
  /** Per notification id, how the receiver answers its n-th request. */
  const script = new Map<string, (n: number) => 'fail' | 'hold' | 'accept'>();

  function receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers[WEBHOOK_HEADERS.id] ?? '');
      const attempt = Number(req.headers[WEBHOOK_HEADERS.attempt]);
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
      const verified = verifyWebhook({ secret, timestamp: header(WEBHOOK_HEADERS.timestamp), signature: header(WEBHOOK_HEADERS.signature), body: raw, nowSeconds: Math.floor(Date.now() / 1000) });
      const body = JSON.parse(raw) as OptimizerNotification;
      if (!verified.ok || body.notificationId !== id || body.kind !== req.headers[WEBHOOK_HEADERS.kind]) {
        requests.push({ id, attempt, at: Date.now(), outcome: 'unsigned' });
        res.writeHead(401).end();
        return;
      }
      const nth = requests.filter((r) => r.id === id).length + 1;
      const action = (script.get(id) ?? (() => 'accept'))(nth);
      // The receiver's dedupe: an id it already accepted is acknowledged and dropped.
      const accept = (): 'accepted' | 'duplicate' => {
        if (accepted.has(id)) return 'duplicate';
        accepted.set(id, (accepted.get(id) ?? 0) + 1);
        return 'accepted';
      };
      if (action === 'fail') {
        requests.push({ id, attempt, at: Date.now(), outcome: 'failed' });
        res.writeHead(nth % 2 ? 503 : 500, { 'content-type': 'text/plain' }).end('busy, try later');
        return;
      }
      if (action === 'hold') {
        requests.push({ id, attempt, at: Date.now(), outcome: 'held' });
        // Past the sender's timeout: it gives up on this attempt, the receiver still processes it.
        setTimeout(() => {
          const done = accept();
          requests.push({ id, attempt, at: Date.now(), outcome: done });
          if (!res.destroyed) res.writeHead(200).end();
        }, 2500);
        return;
      }
      const done = accept();
      requests.push({ id, attempt, at: Date.now(), outcome: done });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, duplicate: done === 'duplicate' }));
    });
  }

  const webhook = (): Webhook => ({ url, secret, maxAttempts: 5, timeoutMs: 400, backoffMs: 50, backoffCapMs: 200, pollMs: 50 });

  beforeAll(async () => {
    const db = process.env['DATABASE_URL'];
    if (!db) throw new Error('DATABASE_URL is required');
    await migrateRole(optimizerDefinition, db);
    ds = createServiceDataSource({ url: db, schema: 'optimizer', poolSize: 3 });
    await ds.initialize();
    server = createServer(receive);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/optimizer`;
  }, 60000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await ds?.destroy();
    if (previous === undefined) delete process.env['AOC_OPTIMIZER_WEBHOOK_URL'];
    else process.env['AOC_OPTIMIZER_WEBHOOK_URL'] = previous;
  });

  it('delivers each terminal result exactly once through failures, a timeout and a crash between send and mark', async () => {
    // The results, through the code that produces them: a Focus that reached a final status and a record's three decided problems.
    process.env['AOC_OPTIMIZER_WEBHOOK_URL'] = url;
    const { record, candidate } = recordFixture(unique, ['SUP-1', 'SUP-2', 'SUP-3'].map((t) => `${t}${unique.slice(-4)}`));
    const refs = record.problems.map((p) => p.ref);
    const focusId = `focus-${unique}`;
    await ds.transaction(async (m) => {
      const focus = await openFocus(m, { focusId, focusDigest: 'focus:it', signature: candidate.signature, candidate }, new Date());
      await transition(m, focus, 'focus_candidate_rejected', {}, new Date(), 'the fresh baseline did not confirm the gap');
      await settleRecord(m, await saveRecord(m, record, ['default'], new Date()), new Date());
      await moveProblems(m, record, refs, 'candidate', 'deployed_version_seen', 'deployed', new Date());
      await moveProblems(m, record, refs.slice(0, 2), 'optimized_unverified', 'verification_passed', 'verified', new Date());
      await moveProblems(m, record, refs.slice(2), 'optimized_unverified', 'verification_failed', 'still a gap', new Date());
    });
    // A result written by a process without a webhook: recorded, never sent.
    delete process.env['AOC_OPTIMIZER_WEBHOOK_URL'];
    const { candidate: other } = recordFixture(quiet, ['OPS-1']);
    await ds.transaction(async (m) => transition(m, await openFocus(m, { focusId: `focus-${quiet}`, focusDigest: 'focus:quiet', signature: other.signature, candidate: other }, new Date()), 'focus_candidate_rejected', {}, new Date(), 'not confirmed'));

    const [focusNote] = await notificationsAbout(ds.manager, focusId);
    const problemNotes = await notificationsAbout(ds.manager, record.recordId);
    const [quietNote] = await notificationsAbout(ds.manager, `focus-${quiet}`);
    expect([focusNote.status, ...problemNotes.map((n) => n.status), quietNote.status]).toEqual(['pending', 'pending', 'pending', 'pending', 'not_configured']);
    const byRef = (ref: string) => problemNotes.find((n) => n.subject === `${record.recordId}/${ref}`) as StoredNotification;
    const [verified, crashed, failing] = [byRef(refs[0]), byRef(refs[1]), byRef(refs[2])];

    // Idempotent per result: the same result written again is the same row.
    const again = focusTerminalNotification({ focusId, signature: candidate.signature, candidate, tenants: [], createdAt: new Date().toISOString() }, 'rejected', 'focus_candidate_rejected', 'again', new Date());
    expect(again.notificationId).toBe(focusNote.notificationId);
    expect(await enqueueNotification(ds.manager, again, new Date(), 'pending')).toBe(false);
    expect(await moveProblems(ds.manager, record, refs.slice(0, 2), 'optimized_unverified', 'verification_passed', 'verified', new Date())).toEqual([]);
    expect(await notificationsAbout(ds.manager, record.recordId)).toHaveLength(3);

    // The receiver: the Focus's notification fails twice, then is held past the timeout once; one problem's always fails.
    script.set(focusNote.notificationId, (n) => (n <= 2 ? 'fail' : n === 3 ? 'hold' : 'accept'));
    script.set(failing.notificationId, () => 'fail');

    // The first sender dies after the receiver accepted `crashed`, before marking it.
    let dies = true;
    const dying = new WebhookSender(ds, webhook(), {
      claimMs: 1000,
      afterSend: (n, outcome) => {
        if (dies && n.notificationId === crashed.notificationId) {
          dies = false;
          expect(outcome.ok).toBe(true);
          throw new Error('sender killed between the POST and its mark');
        }
      },
    });
    const ours = [focusNote, verified, crashed, failing].map((n) => n.notificationId);
    const settled = async () => (await Promise.all(ours.map((id) => notificationById(ds.manager, id)))).every((n) => n?.status === 'delivered' || n?.status === 'gave_up');
    try {
      for (let i = 0; i < 50 && dies; i += 1) {
        await dying.deliverDue().catch((error: unknown) => expect(String(error)).toContain('sender killed'));
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await dying.close();
    }
    expect(dies).toBe(false);
    expect((await notificationById(ds.manager, crashed.notificationId))).toMatchObject({ status: 'pending', claimed: true, attempts: 1 });

    // A new sender takes over: the crashed claim expires and is sent again under the same id.
    const sender = new WebhookSender(ds, webhook(), { claimMs: 1000 });
    try {
      for (const until = Date.now() + 30_000; !(await settled()); ) {
        if (Date.now() > until) throw new Error(`not settled: ${JSON.stringify(await Promise.all(ours.map((id) => notificationById(ds.manager, id))))}`);
        await sender.deliverDue();
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await sender.close();
    }
    // Let the held attempt finish at the receiver (it arrives after its retry).
    await new Promise((r) => setTimeout(r, 2600));

    const seen = (id: string) => requests.filter((r) => r.id === id);
    // Exactly one accepted delivery per result the receiver accepts; nothing ever unsigned.
    expect(requests.filter((r) => r.outcome === 'unsigned')).toEqual([]);
    for (const id of [focusNote.notificationId, verified.notificationId, crashed.notificationId]) expect(accepted.get(id)).toBe(1);
    expect(accepted.has(failing.notificationId)).toBe(false);
    expect(accepted.has(quietNote.notificationId)).toBe(false);
    expect(seen(quietNote.notificationId)).toEqual([]);

    // The Focus's: two failures, one held past the timeout (accepted late, so its retry or the late one is the duplicate).
    const focusSeen = seen(focusNote.notificationId);
    expect(focusSeen.filter((r) => r.outcome !== 'held').map((r) => r.outcome).sort()).toEqual(['accepted', 'duplicate', 'failed', 'failed']);
    expect(focusSeen.filter((r) => r.outcome !== 'accepted' && r.outcome !== 'duplicate').map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(focusSeen.find((r) => r.outcome === 'accepted')?.attempt).toBe(4);
    expect(await notificationById(ds.manager, focusNote.notificationId)).toMatchObject({ status: 'delivered', attempts: 4, lastStatusCode: 200, lastError: null, claimed: false });
    // The crashed one: accepted once, sent again after the claim expired, dropped as a duplicate, then marked.
    expect(seen(crashed.notificationId).map((r) => [r.attempt, r.outcome])).toEqual([
      [1, 'accepted'],
      [2, 'duplicate'],
    ]);
    expect(await notificationById(ds.manager, crashed.notificationId)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(await notificationById(ds.manager, verified.notificationId)).toMatchObject({ status: 'delivered', attempts: 1 });
    // The failing one: five attempts, backing off 50, 100, 200, 200 ms (the cap), then given up with the error kept.
    const failed = seen(failing.notificationId);
    expect(failed.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5]);
    const gaps = failed.slice(1).map((r, i) => r.at - failed[i].at);
    [50, 100, 200, 200].forEach((min, i) => expect(gaps[i]).toBeGreaterThanOrEqual(min - 10));
    expect(await notificationById(ds.manager, failing.notificationId)).toMatchObject({ status: 'gave_up', attempts: 5, lastStatusCode: 503, lastError: 'gave up after 5 attempt(s): the receiver answered HTTP 503: busy, try later', claimed: false });
    // Not configured: never claimed, never attempted.
    expect(await notificationById(ds.manager, quietNote.notificationId)).toMatchObject({ status: 'not_configured', attempts: 0, nextAttemptAt: null });
  }, 120000);

  it('times an attempt out at the configured timeout and never puts the URL in the error', async () => {
    const sender = new WebhookSender(ds, { ...webhook(), url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/secret-path-token` });
    const id = `ntf-${unique}${'0'.repeat(12)}`;
    const body = JSON.stringify({ notificationId: id, kind: 'focus.terminal' });
    script.set(id, () => 'hold');
    const started = Date.now();
    const outcome = await sender.post({ notificationId: id, kind: 'focus.terminal', body, attempt: 1 });
    await sender.close();
    expect(Date.now() - started).toBeLessThan(1400);
    expect(outcome).toEqual({ ok: false, statusCode: null, error: expect.stringMatching(/^no answer from http:\/\/127\.0\.0\.1:\d+ within 400 ms$/), retryAfterMs: null });
    expect(outcome.error).not.toContain('secret-path-token');
    // Nothing listening: a refused connection, also without the path.
    const closed = new WebhookSender(ds, { ...webhook(), url: 'http://127.0.0.1:9/secret-path-token' });
    const refused = await closed.post({ notificationId: id, kind: 'focus.terminal', body, attempt: 1 });
    await closed.close();
    expect(refused).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('failed before a reply') });
    expect(refused.error).not.toContain('secret-path-token');
    await new Promise((r) => setTimeout(r, 2600));
  }, 30000);
});
