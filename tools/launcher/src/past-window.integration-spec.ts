import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrometheus, type FixtureSeries, type RunningPrometheus } from '@aoc/providers/testing';
import { TicketIntakeService } from '@aoc/service-router';
import { gauge, minutes } from './examples/series-builders';
import { startPlatform, type Platform } from './embedded-platform';
import { runEnd, waitForRun, type ExampleRequest } from './run-example';

/**
 * A run about the past reads the past: a real Prometheus holds `payments-prod` only around a
 * moment two days ago. The CLI with `--cutoff` at that moment resolves the cluster, prints both
 * messages and ends without a verdict (no human answer); a live run of a ticket that states the
 * incident time reads the hour around that time, not the hour before now.
 */
const ROOT = join(__dirname, '..', '..', '..');
const CUTOFF = new Date(Math.floor((Date.now() - 2 * 86_400_000) / 3_600_000) * 3_600_000);
const iso = (offsetMin: number) => new Date(CUTOFF.getTime() + offsetMin * 60_000).toISOString();
const at = (offsetMin: number) => CUTOFF.getTime() / 1000 + offsetMin * 60;
// Series only from three hours before to half an hour after the cutoff: nothing near now.
const times = minutes(iso(-180), iso(30));

function series(): FixtureSeries[] {
  const labels = { cluster: 'payments-prod', dbinstance_identifier: 'payments-prod', job: 'cloudwatch' };
  return [
    gauge('aws_rds_database_connections_average', labels, times, (t) => (t >= at(-40) ? Math.min(500, 120 + (t - at(-40)) / 3) : 120 + Math.sin(t / 7) * 4)),
    gauge('aws_rds_cpuutilization_average', labels, times, (t) => 22 + Math.sin(t / 7) * 2),
    gauge('pg_settings_max_connections', { cluster: 'payments-prod', job: 'postgres' }, times, () => 500),
  ];
}

const ticket = (over: Partial<ExampleRequest['ticket']> = {}): ExampleRequest['ticket'] => ({
  key: 'RDS-71',
  title: 'Too many connections on cluster payments-prod',
  description: 'Since about 40 minutes our app gets "remaining connection slots are reserved" errors from cluster payments-prod.',
  reporterRole: 'customer',
  createdAt: iso(-5),
  labels: [],
  comments: [],
  ...over,
});

/** Runs `aoc` to its end and returns its exit code and output (no time is asserted). */
function aoc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/aoc.ts', ...args], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'error' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a run about the past reads the past (real Prometheus)', () => {
  let prom: RunningPrometheus;
  let dir: string;

  beforeAll(async () => {
    prom = await startPrometheus(series());
    dir = mkdtempSync(join(tmpdir(), 'aoc-past-window-'));
  }, 120000);

  afterAll(async () => {
    await prom?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('aoc analyze --cutoff two days ago resolves the cluster, prints both messages and ends without waiting for a verdict', async () => {
    const file = join(dir, 'ticket.json');
    writeFileSync(file, JSON.stringify({ ticket: ticket() }));
    const out = await aoc(['analyze', file, '--prometheus', prom.baseUrl, '--cutoff', CUTOFF.toISOString()]);
    expect(out.stderr).not.toMatch(/did not reach a verdict|aoc: /);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('--- customer reply ---');
    expect(out.stdout).toContain('--- internal handoff ---');
    expect(out.stdout).toContain('We looked at payments-prod');
    expect(out.stdout).toMatch(/limit of 500/);
    expect(out.stdout).not.toMatch(/ID of the affected cluster/);
    expect(out.stdout).toContain('verdict: none (the ticket holds no human answer to compare with)');
    expect(out.stdout).not.toContain('waiting for the Judge');
  }, 180000);

  it('with a human answer after the cutoff, aoc analyze prints the messages, says it waits for the Judge and prints its verdict', async () => {
    const file = join(dir, 'answered.json');
    const reply = { id: 'c-support-1', authorRole: 'support', visibility: 'public', createdAt: iso(20), body: 'payments-prod reached its limit of 500 connections; we raised max_connections.' } as const;
    writeFileSync(file, JSON.stringify({ ticket: ticket({ key: 'RDS-73', comments: [reply] }) }));
    const out = await aoc(['analyze', file, '--prometheus', prom.baseUrl, '--cutoff', CUTOFF.toISOString()]);
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    const waiting = lines.indexOf('waiting for the Judge: the ticket holds a human answer');
    expect(waiting).toBeGreaterThan(lines.indexOf('--- internal handoff ---'));
    expect(lines.slice(waiting + 1).some((l) => /^verdict: [a-z_]+/.test(l) && !l.startsWith('verdict: none'))).toBe(true);
  }, 180000);

  describe('in one process', () => {
    let platform: Platform;

    beforeAll(async () => {
      platform = await startPlatform({ executor: { mode: 'live', recordings: [], prometheusTargets: [{ name: 'rds-metrics', baseUrl: prom.baseUrl, targetLabel: 'cluster' }] } });
    }, 120000);

    afterAll(async () => {
      await platform?.stop();
    });

    it('the inventory the router resolves against covers the cutoff, though the hour before now holds no series', async () => {
      const now = Math.floor(Date.now() / 1000);
      const recent = (await (await fetch(`${prom.baseUrl}/api/v1/label/cluster/values?start=${now - 3600}&end=${now}`)).json()) as { data: string[] };
      expect(recent.data).toEqual([]);
      const rows: { provider: string; targets: { target: string }[] }[] = await platform.dataSource.query(`SELECT "provider", "targets" FROM "router"."provider_inventories"`);
      expect(rows).toEqual([{ provider: 'prometheus', targets: [{ target: 'payments-prod', aliases: [] }] }]);
    });

    it('a live run of a ticket stating the incident time reads the hour around it and publishes without a verdict', async () => {
      const request: ExampleRequest = {
        mode: 'read',
        trigger: 'initial',
        // Opened an hour after the stated time: the hour before the ticket would show only the climb.
        ticket: ticket({ key: 'RDS-72', createdAt: iso(25), description: `Since ${iso(-40)} our app gets "remaining connection slots are reserved" errors from cluster payments-prod.` }),
      };
      expect(runEnd(request)).toBe('published');
      const accepted = await platform.roles.get('router')!.get(TicketIntakeService).analyze(request);
      const summary = await waitForRun(platform, accepted.runId, runEnd(request), 90000);
      expect(summary.toolCalls.map((c) => c.target)).toEqual(expect.arrayContaining(['payments-prod']));
      expect(summary.toolCalls.map((c) => c.window)).toEqual(expect.arrayContaining([{ from: iso(-70), to: iso(-10) }]));
      expect(summary.evidenceStatus).toBe('complete');
      expect(summary.customerReplyMarkdown).toMatch(/limit of 500/);
      expect(summary.verdict).toBeNull();
    }, 120000);
  });
});
