import { z } from 'zod';
import { IsoDateTime } from '../../common';
import { defineTopic } from '../../topic-definition';

export const OptimizerCandidateEnqueuedKeyV1 = z.string().min(1).max(128);
export const OptimizerCandidateEnqueuedV1 = z.object({
  candidateId: z.string().min(1).max(128),
  focusId: z.string().min(1).max(128),
  enqueuedAt: IsoDateTime,
  change: z.object({
    kind: z.enum(['playbook', 'prompt', 'threshold', 'config']),
    artifact: z.string().min(1).max(200),
    fromVersion: z.string().min(1).max(64),
    toVersion: z.string().min(1).max(64),
    summary: z.string().min(1).max(2000),
  }),
  gate: z.object({
    status: z.enum(['passed', 'failed']),
    baselineScore: z.number(),
    challengerScore: z.number(),
    replayedCases: z.number().int().nonnegative(),
    blockingCriteria: z.array(z.object({ name: z.string(), passed: z.boolean() })).max(20),
  }),
});
export type OptimizerCandidateEnqueuedV1 = z.infer<typeof OptimizerCandidateEnqueuedV1>;

export const optimizerCandidateEnqueuedTopic = defineTopic({
  baseName: 'optimizer.candidate-enqueued',
  version: 1,
  description: 'A gated candidate change (playbook, prompt, threshold or config) with the replay evidence that passed its gate.',
  keyField: 'candidateId',
  key: OptimizerCandidateEnqueuedKeyV1,
  value: OptimizerCandidateEnqueuedV1,
  producers: ['optimizer'],
  consumers: [],
});
