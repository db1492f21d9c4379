import { z } from 'zod';

/** What the optimizer's replay port hands its worker process, and what it reads back (both validated). */
export const WorkerInput = z
  .object({
    cases: z.array(z.object({ caseId: z.string().min(1).max(64), ticketFile: z.string().min(1), cutoff: z.string().nullable() }).strict()).max(500),
    /** Recordings besides the bundled ones (e.g. the optimizer demo's). */
    recordings: z.array(z.string().min(1)).max(10),
    timeoutMs: z.number().int().min(1000).max(600_000),
    /** Cases in flight at once. */
    concurrency: z.number().int().min(1).max(16).default(4),
  })
  .strict();
export type WorkerInput = z.infer<typeof WorkerInput>;

export const WorkerOutput = z
  .object({
    results: z.array(
      z
        .object({
          caseId: z.string(),
          answer: z
            .object({
              customerReplyMarkdown: z.string(),
              internalHandoffMarkdown: z.string(),
              decision: z.enum(['internal_only', 'human_required', 'clarification_needed']),
              requestedContext: z.array(z.string()),
              queriedFamilies: z.array(z.string()),
            })
            .strict()
            .nullable(),
          execution: z.object({ responseGeneration: z.enum(['complete', 'failed']), providerCapability: z.enum(['verified', 'unverified']) }).strict(),
          error: z.string().nullable(),
        })
        .strict(),
    ),
  })
  .strict();
export type WorkerOutput = z.infer<typeof WorkerOutput>;
