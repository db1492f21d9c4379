import { PGlite } from '@electric-sql/pglite';
import { countedRunSql, isCountedRun } from './reporter.tables';

describe('counted runs', () => {
  const runs = [
    { trigger: 'initial', ticketKey: 'OPS-1', counted: true },
    { trigger: 'bot_assignment', ticketKey: 'OPS-2', counted: true },
    { trigger: 'continuation', ticketKey: 'OPS-1', counted: false },
    { trigger: 'replay', ticketKey: 'OPS-3', counted: false },
    // A ticket sent in a request body runs under its own key and stays out of every report.
    { trigger: 'initial', ticketKey: 'adhoc-1a2b3c4d-OPS-1', counted: false },
  ];

  it('counts the autonomous entries of tickets read from a source only', () => {
    expect(runs.map((r) => isCountedRun(r))).toEqual(runs.map((r) => r.counted));
  });

  it('says the same in SQL as in code', async () => {
    const db = new PGlite();
    try {
      const values = runs.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(', ');
      const res = await db.query<{ counted: boolean }>(`SELECT ${countedRunSql('r')} AS counted FROM (VALUES ${values}) AS r("trigger", "ticket_key")`, runs.flatMap((r) => [r.trigger, r.ticketKey]));
      expect(res.rows.map((row) => row.counted)).toEqual(runs.map((r) => r.counted));
    } finally {
      await db.close();
    }
    // Starting PGlite takes seconds on a loaded machine.
  }, 60000);
});
