import { createHash } from 'node:crypto';
import { sanitiseMySqlRows } from './generic-mysql-stats';

describe('MySQL statistics rows as they leave the package', () => {
  const secret = 'pw-Secret-77';
  const columns = ['DIGEST', 'DIGEST_TEXT', 'INFO', 'TRX_QUERY', 'HOST', 'USER', 'LAST_ERROR_MESSAGE', 'SCHEMA_NAME', 'COUNT_STAR'];
  const statement = "SELECT * FROM accounts WHERE password = 'hunter2' AND email = 'a@b.example'";
  const rows = [['3e2f1a0b9c8d7e6f3e2f1a0b9c8d7e6f', 'SELECT * FROM `accounts` WHERE `password` = ?', statement, `UPDATE users SET token = '${secret}'`, '10.0.0.5:51234', 'app_rw', `Error 'Duplicate entry' on query '${statement}'`, `db-${secret}`, 42]];

  it('turns statement text into references and its kind, hosts and error texts into [redacted], accounts into references', () => {
    const out = sanitiseMySqlRows(columns, rows, [secret, '10.0.0.5']);
    expect(out.columns).toEqual(['digest', 'digest_text_digest', 'digest_text_kind', 'info_digest', 'info_kind', 'trx_query_digest', 'trx_query_kind', 'host', 'user', 'last_error_message', 'schema_name', 'count_star']);
    const [row] = out.rows;
    expect(row[0]).toBe('3e2f1a0b9c8d7e6f3e2f1a0b9c8d7e6f');
    expect(row[1]).toMatch(/^digest:[0-9a-f]{16}$/);
    expect(row[2]).toBe('SELECT');
    expect(row[3]).toMatch(/^stmt:[0-9a-f]{16}$/);
    expect(row[5]).toMatch(/^stmt:[0-9a-f]{16}$/);
    expect(row[6]).toBe('UPDATE');
    expect(row.slice(7, 10)).toEqual(['[redacted]', expect.stringMatching(/^user:[0-9a-f]{16}$/), '[redacted]']);
    expect(row[11]).toBe(42);
    const text = JSON.stringify(out);
    for (const leak of ['hunter2', 'a@b.example', secret, '10.0.0.5', 'app_rw', 'accounts', 'password']) expect(text).not.toContain(leak);
  });

  it('gives the same normalised digest text the same reference (digests compare across windows), raw text a keyed one', () => {
    const a = sanitiseMySqlRows(['DIGEST_TEXT', 'INFO'], [['SELECT ?', 'SELECT 1']], []);
    const b = sanitiseMySqlRows(['digest_text', 'info'], [['SELECT ?', 'SELECT 1']], []);
    expect(a.rows[0][0]).toBe(b.rows[0][0]);
    expect(a.rows[0][0]).toBe('digest:' + createHash('sha256').update('SELECT ?').digest('hex').slice(0, 16));
    expect(a.rows[0][2]).not.toBe('stmt:' + createHash('sha256').update('SELECT 1').digest('hex').slice(0, 16));
  });

  it('refuses a server digest that is not hex, and keeps nulls', () => {
    expect(sanitiseMySqlRows(['digest', 'digest_text'], [["'; DROP", null]], []).rows).toEqual([['[redacted]', null, null]]);
  });
});
