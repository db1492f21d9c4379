import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';

/**
 * A private schema on the local MariaDB for one test run: an ordinary table, TiDB-shaped
 * diagnostic tables (`slow_query`, `statements_summary`, `statements_summary_history`), a
 * function that writes (to prove the session itself is read-only), and a read-only account.
 * Connection: MARIADB_HOST / MARIADB_PORT / MARIADB_ROOT_USER / MARIADB_ROOT_PASSWORD, by
 * default root without password on 127.0.0.1:3306. Fails, never skips, when MariaDB is missing.
 */

export interface MariaDbSandbox {
  host: string;
  port: number;
  schema: string;
  readOnlyUser: string;
  readOnlyPassword: string;
  /** Runs a statement as the administrator (setup and assertions only). */
  admin(sql: string, values?: unknown[]): Promise<unknown>;
  /** Opens a raw connection as the read-only account, bypassing the connector. */
  connectReadOnly(): Promise<Connection>;
  drop(): Promise<void>;
}

export async function createMariaDbSandbox(): Promise<MariaDbSandbox> {
  const host = process.env['MARIADB_HOST'] ?? '127.0.0.1';
  const port = Number(process.env['MARIADB_PORT'] ?? '3306');
  const suffix = randomBytes(4).toString('hex');
  const schema = `aoc_clinic_${suffix}`;
  const readOnlyUser = `aoc_ro_${suffix}`;
  const readOnlyPassword = `ro-${randomBytes(12).toString('hex')}`;
  let root: Connection;
  try {
    root = await createConnection({ host, port, user: process.env['MARIADB_ROOT_USER'] ?? 'root', password: process.env['MARIADB_ROOT_PASSWORD'] ?? '', multipleStatements: false });
  } catch (error) {
    throw new Error(`MariaDB is required on ${host}:${port} for this suite: ${(error as Error).message}`);
  }
  const admin = async (sql: string, values: unknown[] = []) => (await root.query(sql, values))[0];
  await admin(`CREATE DATABASE \`${schema}\``);
  await admin(`CREATE TABLE \`${schema}\`.orders (id INT PRIMARY KEY, region VARCHAR(32), amount DECIMAL(10,2), note TEXT, created_at DATETIME(3))`);
  await admin(
    `CREATE TABLE \`${schema}\`.slow_query (\`Time\` TIMESTAMP(6) NOT NULL, \`Digest\` VARCHAR(64), \`Query_time\` DOUBLE, \`Succ\` TINYINT, \`Is_internal\` TINYINT, \`Mem_max\` BIGINT, \`Process_keys\` BIGINT, \`Conn_ID\` BIGINT, \`Host\` VARCHAR(64), \`Query\` TEXT)`,
  );
  for (const table of ['statements_summary', 'statements_summary_history']) {
    await admin(
      `CREATE TABLE \`${schema}\`.${table} (\`SUMMARY_BEGIN_TIME\` TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00', \`SUMMARY_END_TIME\` TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00', \`STMT_TYPE\` VARCHAR(32), \`DIGEST\` VARCHAR(64), \`DIGEST_TEXT\` TEXT, \`PLAN_DIGEST\` VARCHAR(64), \`EXEC_COUNT\` BIGINT, \`SUM_LATENCY\` BIGINT, \`MAX_LATENCY\` BIGINT, \`MAX_MEM\` BIGINT, \`SUM_ERRORS\` BIGINT)`,
    );
  }
  // Runs with its definer's rights, so only the session's read-only mode can stop the write.
  await admin(`CREATE DEFINER = CURRENT_USER FUNCTION \`${schema}\`.aoc_write_probe() RETURNS INT MODIFIES SQL DATA SQL SECURITY DEFINER BEGIN INSERT INTO \`${schema}\`.orders (id, region) VALUES (999999, 'probe'); RETURN 1; END`);
  await admin(`CREATE USER ?@'%' IDENTIFIED BY ?`, [readOnlyUser, readOnlyPassword]);
  await admin(`GRANT SELECT ON \`${schema}\`.* TO ?@'%'`, [readOnlyUser]);
  await admin(`GRANT EXECUTE ON FUNCTION \`${schema}\`.aoc_write_probe TO ?@'%'`, [readOnlyUser]);
  return {
    host,
    port,
    schema,
    readOnlyUser,
    readOnlyPassword,
    admin,
    connectReadOnly: () => createConnection({ host, port, user: readOnlyUser, password: readOnlyPassword, database: schema }),
    drop: async () => {
      try {
        await admin(`DROP USER IF EXISTS ?@'%'`, [readOnlyUser]);
        await admin(`DROP DATABASE IF EXISTS \`${schema}\``);
      } finally {
        await root.end();
      }
    },
  };
}
