import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProposer, localDataAccess, ScheduleConfig, type CandidateProposer, type CandidateWriter, type FocusSelector, type FreeTextJudge, type RepairPublisher, type SlotDeps, type Transact } from '@aoc/service-optimizer';
import type { Platform } from '../embedded-platform';
import { childReplayPort } from './child-replay';
import { embeddedRepairPublisher } from './single-ticket-demo';

/** Ticket key -> frozen ticket file, over every case directory (files in name order). */
export function frozenCaseFiles(dirs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of dirs) {
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
      const key = (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { ticket?: { key?: string } }).ticket?.key;
      if (key) out.set(key, join(dir, f));
    }
  }
  return out;
}

export interface LocalOptimizerOptions {
  ticketFiles: ReadonlyMap<string, string>;
  recordings: readonly string[];
  writer?: CandidateWriter;
  proposer?: CandidateProposer;
  freeTextJudge?: FreeTextJudge;
  selector?: FocusSelector;
  timeZone?: string;
  /** Days a rejected grouping stays out of selection; `AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS` (14) when absent. */
  rejectionLookbackDays?: number;
  /** Where a verified single-ticket repair is re-published; the embedded publisher when absent. */
  publisher?: RepairPublisher;
}

/** What the optimizer needs on this machine besides its transactions: child-process replays, this checkout's data. */
export function localOptimizerPorts(options: LocalOptimizerOptions): Omit<SlotDeps, 'transact'> {
  return {
    replay: childReplayPort({ ticketFiles: options.ticketFiles, recordings: options.recordings }),
    data: localDataAccess(),
    now: () => new Date(),
    proposer: options.proposer ?? builtinProposer,
    ...(options.freeTextJudge ? { freeTextJudge: options.freeTextJudge } : {}),
    ...(options.selector ? { selector: options.selector } : {}),
    writer: options.writer ?? { write: () => Promise.resolve(null) },
    timeZone: options.timeZone ?? 'Asia/Shanghai',
    // Parsed with the optimizer's schema, so a bad value fails here naming the key.
    rejectionLookbackDays: options.rejectionLookbackDays ?? ScheduleConfig.parse(process.env).rejectionLookbackDays,
    publisher: options.publisher ?? embeddedRepairPublisher(),
  };
}

/** Transactions on the optimizer role of a running platform (its schema and outbox). */
export function optimizerTransact(platform: Platform): Transact {
  const optimizer = platform.roles.get('optimizer');
  if (!optimizer) throw new Error('the optimizer role is not running');
  return (work) => optimizer.runtime.bus.transaction(work);
}
