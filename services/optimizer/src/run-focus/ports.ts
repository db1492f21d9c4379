import type { UnitOfWork } from '@aoc/bus';
import type { DataManifest } from '@aoc/versioned-data';
import type { ExecutionState, JudgedAnswer } from '../judge-criteria/criterion-judge';

/** One frozen case to replay: the ticket at its own cutoff, with its recorded evidence. */
export interface ReplayRequest {
  caseId: string;
  role: 'target' | 'control';
  ticketKey: string;
  cutoff: string | null;
  /** The answer version the case was selected on (the replay reuses its recorded evidence). */
  runId: string;
}

/** What a replay produced; no answer means it did not execute (and says why). */
export interface ReplayResult {
  caseId: string;
  answer: JudgedAnswer | null;
  execution: ExecutionState;
  error: string | null;
}

/** Replays cases on the current versioned data, or on the current data with `overlay` files in place. */
export interface ReplayPort {
  replay(cases: readonly ReplayRequest[], overlay: ReadonlyMap<string, string> | null): Promise<ReplayResult[]>;
  /** The frozen ticket's title and description, for the proposer's word search; read on demand, never stored. Null when unknown. */
  ticketText?(request: ReplayRequest): string | null;
}

/** Writes an accepted candidate as a branch and a commit in the operator's working copy; never merges. */
export interface CandidateWriter {
  write(candidate: { focusId: string; attempt: number; files: ReadonlyMap<string, string>; message: string }): Promise<{ branch: string; sha: string } | null>;
}

/** The versioned data as this process reads it. */
export interface DataAccess {
  manifest: DataManifest;
  read(path: string): string;
  /** Digest of the declared data files: the base version candidates apply to. */
  baseVersion(): string;
}

/** Short transactions on the optimizer's schema and outbox. */
export type Transact = <R>(work: (uow: UnitOfWork) => Promise<R>) => Promise<R>;
