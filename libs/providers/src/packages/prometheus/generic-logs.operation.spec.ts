import type { LokiRangeResult } from '../../connectors/loki-connector';
import { LOG_PATTERNS, LOGS_MAX_LIMIT, GenericLogsResult, linePattern, redactLogSample, summariseLogLines } from './generic-logs.operation';

const ns = (minute: number) => `${BigInt(Date.UTC(2026, 10, 20, 10, minute)) * 1_000_000n}`;
const result = (lines: string[], labels: Record<string, string> = { cluster: 'pg-1' }): LokiRangeResult => ({
  streams: [{ labels, entries: lines.map((line, i) => ({ timestampNs: ns(i % 60), line })) }],
  entryCount: lines.length,
  hitLimit: false,
});

describe('log patterns engineers look for', () => {
  it.each([
    ['LOG:  checkpoints are occurring too frequently (24 seconds apart)', 'checkpoint'],
    ['HINT:  Consider increasing the configuration parameter "max_wal_size".', 'checkpoint'],
    ['[Warning] InnoDB: The age of the last checkpoint is 9433645, which exceeds the log group capacity 9433498.', 'checkpoint'],
    ['FATAL:  sorry, too many clients already', 'connection_limit'],
    ['[ERROR] Too many connections', 'connection_limit'],
    ['PANIC:  could not write to file "pg_wal/xlogtemp.123": No space left on device', 'panic'],
    ['ERROR:  could not extend file "base/16384/2619": No space left on device', 'disk'],
    ["[ERROR] Disk is full writing './binlog.000042' (Errcode: 28 \"No space left on device\"). Waiting for someone to free space...", 'disk'],
    ['LOG:  received promote request', 'failover'],
    ['LOG:  selected new timeline ID: 3', 'failover'],
    ['ERROR:  deadlock detected', 'deadlock'],
    ['[Note] InnoDB: Transactions deadlock detected, dumping detailed information.', 'deadlock'],
    ['Deadlock found when trying to get lock; try restarting transaction', 'deadlock'],
    ['FATAL:  could not receive data from WAL stream: server closed the connection unexpectedly', 'replication'],
    ['ERROR:  requested WAL segment 00000001000000000000002A has already been removed', 'replication'],
    ["[ERROR] Slave SQL thread: Error 'Duplicate entry' on query. Default database: 'shop'.", 'replication'],
    ['LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp1234.0", size 104857600', 'temp_file'],
    ['LOG:  automatic vacuum of table "shop.public.orders": index scans: 1', 'autovacuum'],
    ['WARNING:  database "shop" must be vacuumed within 1000000 transactions to avoid wraparound', 'autovacuum'],
    ['ERROR:  canceling statement due to conflict with recovery', 'recovery_conflict'],
    ['ERROR:  canceling statement due to statement timeout', 'statement_timeout'],
    ['[ERROR] InnoDB: Page [page id: space=0, page number=5] log sequence number 2944712 is in the future!', 'redo_log'],
    ["[Warning] Aborted connection 42 to db: 'shop' user: 'app' host: '10.0.0.5' (Got an error reading communication packets)", 'connection'],
    ['[ERROR] Lock wait timeout exceeded; try restarting transaction', 'lock_timeout'],
    ['[Note] mysqld: ready for connections.', 'restart'],
    // Routine checkpoint lines are no warning.
    ['LOG:  checkpoint starting: shutdown immediate', 'other'],
    ['LOG:  checkpoint complete: wrote 3 buffers (0.0%)', 'other'],
    // A standby's restart point is its checkpoint, not a restart of the server.
    ['LOG:  recovery restart point at 0/A3E0C28', 'other'],
    ['LOG:  restartpoint starting: wal', 'other'],
    // MariaDB names a full volume through the table or the file it could not grow.
    ["[ERROR] mariadbd: The table 'uploads' is full", 'disk'],
    ['[ERROR] InnoDB: preallocating 4194304 bytes for file /var/lib/mysql/shop/uploads.ibd failed with error 28', 'disk'],
  ])('%s is %s', (line, pattern) => {
    expect(linePattern(line)).toBe(pattern);
  });

  it('keeps the existing pattern ids first and in order (the result contract); new ones are only added', () => {
    expect(LOG_PATTERNS.slice(0, 12)).toEqual(['oom', 'panic', 'restart', 'failover', 'deadlock', 'lock_timeout', 'statement_timeout', 'connection_limit', 'connection', 'authentication', 'disk', 'replication']);
    expect(LOG_PATTERNS.at(-1)).toBe('other');
  });
});

describe('bad log input', () => {
  it('summarises a 1 MB line: bounded, its sample redacted and cut, no secret straddling the cut', () => {
    const secret = 'pw-9f8e7d6c5b4a';
    const huge = `ERROR:  deadlock detected host=10.1.2.3 ${'x'.repeat(1990)}${secret} ${'y'.repeat(1024 * 1024)}`;
    const summary = summariseLogLines(result([huge]), [secret]);
    expect(GenericLogsResult.parse(summary)).toEqual(summary);
    expect(summary).toMatchObject({ lines: 1, byPattern: [{ pattern: 'deadlock', count: 1 }] });
    const [sample] = summary.samples;
    expect(sample.text.length).toBeLessThanOrEqual(160);
    expect(sample.text).not.toContain('10.1.2.3');
    expect(JSON.stringify(summary)).not.toContain(secret.slice(0, 6));
    expect(redactLogSample(`${'z'.repeat(1995)}${secret}`, [secret])).not.toContain(secret.slice(0, 5));
  });

  it('reads a Loki answer of 10,000 streams up to the package limit and says the counts are lower bounds', () => {
    const streams = Array.from({ length: 10_000 }, (_, i) => ({ labels: { cluster: 'pg-1', pod: `p${i}` }, entries: [{ timestampNs: ns(i % 60), line: i % 2 === 0 ? 'FATAL:  sorry, too many clients already' : 'LOG:  ok' }] }));
    const summary = summariseLogLines({ streams, entryCount: 10_000, hitLimit: false });
    expect(summary.lines).toBe(LOGS_MAX_LIMIT);
    expect(summary.hitLimit).toBe(true);
    expect(summary.samples.length).toBeLessThanOrEqual(5);
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThan(4096);
  });

  it('never lets a statement line become a sample, whatever its length', () => {
    const line = `ERROR:  deadlock detected STATEMENT:  UPDATE accounts SET password = 'hunter2' WHERE id = 1 ${'a'.repeat(100_000)}`;
    expect(summariseLogLines(result([line])).samples).toEqual([]);
  });
});
