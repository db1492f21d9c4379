// Incident lab recorder: the database log lines of a case interval, in case time, statement
// text normalised. Postgres: the logging collector's file per member; MariaDB: the error log.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { LabLogLine, Stretch } from '../launcher/src/diagnosis-bench/lab-case';
import { isRecordDump, sanitiseLogLine } from './sanitize';

/** Postgres `%m`: 2026-12-02 00:37:55.484 UTC */
const PG_TS = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) UTC /;
/** MariaDB: 2026-12-02  0:40:55 8 [Warning] ... (local time = UTC on the lab host) */
const MY_TS = /^(\d{4}-\d\d-\d\d)\s+(\d{1,2}):(\d\d):(\d\d) /;

export function lineTime(line: string, format: 'postgres' | 'mariadb'): number | null {
  if (format === 'postgres') {
    const m = PG_TS.exec(line);
    return m ? Date.parse(`${m[1]}T${m[2]}Z`) : null;
  }
  const m = MY_TS.exec(line);
  return m ? Date.parse(`${m[1]}T${m[2].padStart(2, '0')}:${m[3]}:${m[4]}Z`) : null;
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readFrom(path: string, offset: number): string {
  const size = fileSize(path);
  if (size <= offset) return '';
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Lines appended since `offset` whose time falls in the stretch's real interval; a continuation
 * line (no timestamp: a deadlock report, a multi-line statement) keeps the time of the line before.
 * At most `max` lines (the first ones), each rewritten by sanitiseLogLine and stored without
 * its leading stamp: the replay writes the (moved) case time back in the engine's format.
 */
export function sliceLog(path: string, offset: number, format: 'postgres' | 'mariadb', stretch: Stretch, labels: Record<string, string>, max = 3000): LabLogLine[] {
  const out: LabLogLine[] = [];
  let last: number | null = null;
  for (const raw of readFrom(path, offset).split('\n')) {
    if (raw.trim() === '') continue;
    const at: number | null = lineTime(raw, format) ?? last;
    last = at;
    if (at === null || at < stretch.realStartMs || at > stretch.realEndMs || isRecordDump(raw)) continue;
    const caseMs = stretch.caseEndMs - (stretch.realEndMs - at) * stretch.scale;
    const caseStartMs = stretch.caseEndMs - (stretch.realEndMs - stretch.realStartMs) * stretch.scale;
    const text = raw.replace(format === 'postgres' ? PG_TS : MY_TS, '');
    out.push({ t: Math.max(0, Math.round((caseMs - caseStartMs) / 1000)), labels, line: sanitiseLogLine(text) });
    if (out.length >= max) break;
  }
  return out;
}
