import { randomBytes } from 'node:crypto';
import { prometheusEvidencePackage, type PrometheusTarget } from '@aoc/providers';
import { createConnection, type Connection } from 'mysql2/promise';
import { Pool } from 'pg';
import { QUERY_TEMPLATES } from './query-templates';

/**
 * Every statement-statistics template runs on the real servers through the generic package: the
 * PostgreSQL ones on the local PostgreSQL (DATABASE_URL), the MySQL ones on the local MariaDB,
 * each with its own monitoring account made for this run.
 */

const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const suffix = randomBytes(4).toString('hex');
const password = `pw-${randomBytes(10).toString('hex')}`;
const pgRole = `aoc_tpl_${suffix}`;
const myUser = `aoc_tpl_${suffix}`;

describe('statement-statistics templates on the real databases', () => {
  let admin: Pool;
  let root: Connection;
  let targets: PrometheusTarget[];

  beforeAll(async () => {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set: run bash deploy/local/postgres-ensure.sh');
    const parsed = new URL(url);
    admin = new Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE ROLE ${pgRole} LOGIN PASSWORD '${password}' IN ROLE pg_monitor`);
    root = await createConnection({ host: process.env['MARIADB_HOST'] ?? '127.0.0.1', port: Number(process.env['MARIADB_PORT'] ?? '3306'), user: process.env['MARIADB_ROOT_USER'] ?? 'root', password: process.env['MARIADB_ROOT_PASSWORD'] ?? '' });
    await root.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [myUser, password]);
    await root.query(`GRANT PROCESS ON *.* TO ?@'%'`, [myUser]);
    await root.query(`GRANT SELECT ON performance_schema.* TO ?@'%'`, [myUser]);
    targets = [
      { name: 'pg-1', baseUrl: 'http://127.0.0.1:9', postgres: { host: parsed.hostname, port: Number(parsed.port || 5432), database: parsed.pathname.slice(1), user: pgRole, password } },
      { name: 'maria-1', baseUrl: 'http://127.0.0.1:9', mysql: { host: root.config.host ?? '127.0.0.1', port: root.config.port ?? 3306, user: myUser, password } },
    ];
  }, 60_000);
  afterAll(async () => {
    await admin?.query(`DROP ROLE IF EXISTS ${pgRole}`);
    await admin?.end();
    await root?.query(`DROP USER IF EXISTS ?@'%'`, [myUser]);
    await root?.end();
  });

  const runAll = async (target: string, dialect: 'postgresql' | 'mysql') => {
    const templates = QUERY_TEMPLATES.filter((t) => t.operation === 'sql' && t.dialect === dialect);
    const pkg = prometheusEvidencePackage(targets);
    const result = await pkg.runBatch({ ticketKey: null, target, window: WINDOW, queries: templates.map((t) => ({ id: t.id, operation: 'sql', expression: t.expression })) });
    if (!result.ok) throw new Error(`batch failed: ${result.details.error_code}`);
    expect(JSON.stringify(result.details)).not.toMatch(new RegExp(`${password}|${pgRole}`));
    return Object.fromEntries(result.details.queries.map((q) => [q.id, q]));
  };

  it('every PostgreSQL template runs; only the version-specific checkpoint view and a missing extension may be refused, by name', async () => {
    const out = await runAll('pg-1', 'postgresql');
    const { rows } = await admin.query<{ v: number }>('SELECT current_setting(\'server_version_num\')::int AS v');
    const seventeen = rows[0].v >= 170000;
    for (const [id, q] of Object.entries(out)) {
      if (id === (seventeen ? 'pg_checkpoints' : 'pg_checkpointer') || (id === 'pg_top_statements' && q.status === 'failed')) {
        expect([id, q.status, q.error_code]).toEqual([id, 'failed', 'PROVIDER.QUERY_REJECTED']);
        continue;
      }
      expect([id, q.status]).toEqual([id, expect.stringMatching(/^(complete|empty)$/)]);
    }
    expect(out[seventeen ? 'pg_checkpointer' : 'pg_checkpoints'].result).toMatchObject({ dialect: 'postgresql', columns: expect.arrayContaining(['checkpoints_timed', 'checkpoints_req']) });
    expect(out['pg_database_stats'].result).toMatchObject({ columns: expect.arrayContaining(['temp_files', 'temp_bytes', 'deadlocks']) });
    expect(out['pg_activity_waits'].result).toMatchObject({ columns: ['state', 'wait_event_type', 'sessions', 'oldest_xact_age_s'] });
  }, 60_000);

  it('every MySQL template runs on MariaDB and answers in the shape its materialiser reads', async () => {
    const out = await runAll('maria-1', 'mysql');
    for (const [id, q] of Object.entries(out)) expect([id, q.status]).toEqual([id, expect.stringMatching(/^(complete|empty)$/)]);
    expect(out['mysql_top_statements'].result).toMatchObject({ dialect: 'mysql', columns: expect.arrayContaining(['digest', 'digest_text_digest', 'digest_text_kind', 'total_ms', 'all_statements_ms']) });
    expect(out['mysql_processlist'].result).toMatchObject({ columns: ['command', 'state', 'sessions', 'longest_s'] });
    expect(out['mysql_transactions'].result).toMatchObject({ columns: ['transactions', 'lock_waits', 'longest_lock_wait_s', 'long_transactions', 'oldest_transaction_s', 'rows_locked'] });
    expect(out['mysql_innodb_metrics'].result).toMatchObject({ columns: ['name', 'value'], rows: expect.arrayContaining([['lock_deadlocks', expect.any(Number)]]) });
    expect(out['mysql_settings'].result).toMatchObject({ columns: expect.arrayContaining(['max_connections']), rows: [expect.arrayContaining([expect.any(Number)])] });
  }, 60_000);
});
