import { z } from 'zod';
import { IsoDateTime, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';

/** Edits one candidate may carry, and the gate rows it may list. */
export const MAX_CANDIDATE_EDITS = 10;
export const MAX_GATE_ROWS = 200;

const CriterionStatus = z.enum(['met', 'gap', 'inconclusive', 'not_applicable']);

export const OptimizerCandidateEnqueuedKeyV2 = z.string().min(1).max(128);
export const OptimizerCandidateEnqueuedV2 = z.object({
  candidateId: z.string().min(1).max(128).describe('The candidate digest: the same edits are the same candidate'),
  focusId: z.string().min(1).max(128),
  attempt: z.number().int().min(1),
  enqueuedAt: IsoDateTime,
  baseVersion: z.string().min(1).max(64).describe('Digest of the versioned data the candidate applies to'),
  proposer: z.string().min(1).max(64),
  problemStatement: z.string().min(1).max(2000),
  blockingCriterionId: z.string().min(1).max(64),
  edits: z
    .array(
      z.object({
        path: z.string().min(1).max(200).describe('A versioned data file (repository path)'),
        pointer: z.string().min(1).max(200).describe('JSON pointer of the replaced value'),
        valueJson: z.string().max(8000).describe('The new value, as JSON'),
        because: z.string().min(1).max(300),
      }),
    )
    .min(1)
    .max(MAX_CANDIDATE_EDITS),
  diff: z.string().max(20000).describe('Unified diff of the data files'),
  gate: z.object({
    status: z.literal('accepted'),
    reason: z.string().max(1000),
    rows: z
      .array(
        z.object({
          caseId: TicketKey,
          role: z.enum(['target', 'control']),
          criterionId: z.string().min(1).max(64),
          blocking: z.boolean(),
          baseline: CriterionStatus,
          challenger: CriterionStatus,
          transition: z.enum(['regression', 'preexisting_unresolved', 'fixed', 'inconclusive', 'preserved', 'not_applicable']),
        }),
      )
      .max(MAX_GATE_ROWS),
    replayedCases: z.number().int().nonnegative(),
    regressions: z.number().int().nonnegative(),
    controlRegressions: z.number().int().nonnegative(),
    followUpGaps: z.number().int().nonnegative(),
  }),
  evidenceRefs: z.array(z.string().min(1).max(64)).min(1).max(5).describe('The problem-signal refs of the targets'),
  commit: z.object({ branch: z.string().min(1).max(200), sha: z.string().regex(/^[0-9a-f]{40}$/) }).nullable().describe('The branch and commit written in the configured working copy; never merged'),
});
export type OptimizerCandidateEnqueuedV2 = z.infer<typeof OptimizerCandidateEnqueuedV2>;

export const optimizerCandidateEnqueuedTopic = defineTopic({
  baseName: 'optimizer.candidate-enqueued',
  // v2: a candidate is a set of versioned-data edits with its gate rows, refs and commit. v1
  // (a playbook/prompt change with scores) was declared but never produced, and is retired.
  version: 2,
  description: 'A candidate change to versioned data that passed its gate on replayed targets, with the gate table, the evidence refs and the commit it was written as.',
  keyField: 'candidateId',
  key: OptimizerCandidateEnqueuedKeyV2,
  value: OptimizerCandidateEnqueuedV2,
  producers: ['optimizer'],
  consumers: [],
});
