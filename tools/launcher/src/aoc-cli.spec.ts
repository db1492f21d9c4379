import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonFileTicketSource } from '@aoc/ticket-source';

const ROOT = join(__dirname, '..', '..', '..');
const aoc = (...args: string[]) =>
  spawnSync(process.execPath, ['-r', './tools/register.js', 'tools/aoc.ts', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'error' }, timeout: 120000 });

describe('aoc CLI', () => {
  it('explains its usage and exits 2 on a bad command line', () => {
    const out = aoc('analyse');
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('usage: aoc analyze <ticket.json>');
    expect(aoc('analyze', 'services/router/examples/tickets/no-target.json', '--mode', 'delete').status).toBe(2);
  });

  it('analyses a ticket file and asks the customer for the missing target', () => {
    const out = aoc('analyze', 'services/router/examples/tickets/no-target.json', '--json');
    expect(out.status).toBe(0);
    const result = JSON.parse(out.stdout) as { ticketKey: string; decision: string; evidenceStatus: string; customerReplyMarkdown: string };
    expect(result).toMatchObject({ ticketKey: 'SUP-1161', decision: 'human_required', evidenceStatus: 'not_attempted' });
    expect(result.customerReplyMarkdown).toContain('the ID of the affected cluster');
    // The injected instruction in the ticket never turns into an action or a query.
    expect(out.stdout).not.toMatch(/DELETE FROM users/);
  }, 120000);

  it('writes exactly one internal comment for the run in write mode, to the JSON-file ticket source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aoc-cli-'));
    try {
      const first = aoc('analyze', 'services/router/examples/tickets/healthy-false-alarm.json', '--mode', 'write', '--ticket-dir', dir, '--json');
      expect(first.status).toBe(0);
      const result = JSON.parse(first.stdout) as { ticketKey: string; runId: string; customerReplyMarkdown: string; writeBack: { status: string } };
      expect(result.writeBack.status).toBe('written');
      const ticket = await new JsonFileTicketSource({ directory: dir }).readTicket(result.ticketKey);
      const ours = ticket.comments.filter((c) => c.body.includes(`aoc:${result.ticketKey}:final-response`));
      expect(ours).toHaveLength(1);
      expect(ours[0]).toMatchObject({ visibility: 'internal', authorRole: 'bot' });
      expect(ours[0].body).toContain(result.customerReplyMarkdown.split('\n')[0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120000);
});
