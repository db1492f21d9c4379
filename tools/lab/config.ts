// Incident lab recorder (docs/incident-lab.md): where the lab runs and the timeline of a case.
import { join } from 'node:path';

export const LAB_DIR = process.env['LAB_DIR'] ?? '/tmp/aoc-lab';
export const LAB_SCRIPT = join(__dirname, '..', '..', 'deploy', 'lab', 'lab.sh');
export const MNT = join(LAB_DIR, 'mnt');
export const LOG_DIR = join(LAB_DIR, 'log');

export const PORTS = {
  pgA: 55432,
  pgB: 55433,
  mariadb: 53306,
  mariadbExtra: 53307,
  exporterPgA: 59187,
  exporterPgB: 59188,
  exporterMy: 59104,
  exporterNode: 59100,
  prometheus: 59090,
} as const;
export const PROM_URL = `http://127.0.0.1:${PORTS.prometheus}`;

/** The CPU each lane's database is pinned to (deploy/lab/lab.sh): its cluster's node CPU series. */
export const LANE_CPU = { postgres: '0', mariadb: '1' } as const;

/**
 * Timeline of one case in real seconds from its first sample. The window the ticket is about is
 * the last WINDOW_REAL_S; PRELUDE_REAL_S come before it (baseline, or an onset "before").
 */
export const TIME_SCALE = 40;
export const PRELUDE_REAL_S = 20;
export const WINDOW_REAL_S = 90;
export const CASE_REAL_S = PRELUDE_REAL_S + WINDOW_REAL_S;
/** Real second of the fault's onset, per onset variant. */
export const ONSET_REAL_S = { before: 6, early: PRELUDE_REAL_S + 12, middle: PRELUDE_REAL_S + 38, late: PRELUDE_REAL_S + 64 } as const;
/** How long a fault lasts in a `recovered` case (real seconds). */
export const RECOVERED_AFTER_REAL_S = 28;
