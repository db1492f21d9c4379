import { isRecordDump, normaliseSql, sanitiseLogLine } from './sanitize';

describe('what leaves the lab', () => {
  it('keeps the shape of statement text, never its values', () => {
    expect(normaliseSql(`UPDATE t SET a = 'secret' , b = 42.5 WHERE id = $1 AND x = -3`)).toBe('UPDATE t SET a = ? , b = ? WHERE id = $1 AND x = ?');
    expect(normaliseSql(`SELECT 'it''s'`)).toBe('SELECT ?');
  });

  it('normalises the statement a log line carries and leaves the rest', () => {
    expect(sanitiseLogLine(`[12] app@lab STATEMENT:  UPDATE lab_inventory SET qty = qty - 1 WHERE id = 7`)).toBe('[12] app@lab STATEMENT:  UPDATE lab_inventory SET qty = qty - ? WHERE id = ?');
    expect(sanitiseLogLine(`[12] LOG:  duration: 2301.5 ms  statement: SELECT md5('pw')`)).toBe('[12] LOG:  duration: 2301.5 ms  statement: SELECT md5(?)');
    expect(sanitiseLogLine('[12] app@lab DETAIL:  Parameters: $1 = \'x\'')).toBe('[12] app@lab DETAIL:  Parameters: <removed>');
    expect(sanitiseLogLine("UPDATE inventory SET qty=qty-1 WHERE id=3")).toBe('UPDATE inventory SET qty=qty-? WHERE id=?');
    expect(sanitiseLogLine('[9] LOG:  checkpoint complete: wrote 3 buffers (0.0%)')).toBe('[9] LOG:  checkpoint complete: wrote 3 buffers (0.0%)');
  });
});

describe('InnoDB record dumps', () => {
  it('are recognised, the report around them is not', () => {
    expect(isRecordDump(' 0: len 4; hex 80000001; asc     ;;')).toBe(true);
    expect(isRecordDump(' 2: SQL NULL;')).toBe(true);
    expect(isRecordDump('RECORD LOCKS space id 5 page no 3 n bits 80 index PRIMARY')).toBe(false);
  });
});
