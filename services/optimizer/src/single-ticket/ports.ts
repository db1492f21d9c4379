import type { JudgedAnswer } from '../judge-criteria/criterion-judge';
import type { CandidateProposer } from '../propose-candidate/builtin-proposer';
import type { ControllerDeps } from '../run-focus/focus-controller';
import type { SingleTicketInvestigator } from './investigator';

/** What the lane asks to re-publish: the verified read replay of the ticket on the deployed data. */
export interface RepairPublication {
  /** Idempotency key: a job publishes once, however often the step runs. */
  jobId: string;
  ticketKey: string;
  /** The answer version the publication replaces. */
  runId: string;
  answerFingerprint: string;
  dataVersion: string;
  answer: JudgedAnswer;
}

/**
 * Re-publishes a verified repair. In production this is the router's `POST /v1/tickets/publish-read`
 * (the optimizer has no router address configured, so no HTTP adapter is built here); the launcher
 * implements it for the embedded and demo deployment.
 */
export interface RepairPublisher {
  readonly target: string;
  publish(p: RepairPublication): Promise<{ publicationId: string; detail: string }>;
}

/** The lane's ports: the Focus loop's replay, data, proposer and judge, plus its own. */
export type LaneDeps = Pick<ControllerDeps, 'transact' | 'replay' | 'data' | 'now' | 'freeTextJudge'> & {
  proposer: CandidateProposer;
  publisher?: RepairPublisher;
  investigator?: SingleTicketInvestigator;
};

/** Bounds of the lane: jobs advanced per run (a scheduler slot), proposals gated per repair, controls per gate. */
export const LANE_LIMITS = { jobsPerRun: 3, proposalsPerRepair: 3, controls: 2, feedPage: 100 } as const;
