import { z } from 'zod';
import { Decision, IsoDateTime, RunId, RunMode, RunTenant, RunTrigger, Sha256Hex, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';

export const RunPublishedKeyV1 = TicketKey;
/** The published answer. Carries no execution state: consumers such as the judge never see it. */
export const RunPublishedV1 = z
  .object({
    runId: RunId,
    ticketKey: TicketKey,
    tenant: RunTenant,
    mode: RunMode,
    trigger: RunTrigger,
    publishedAt: IsoDateTime,
    cutoff: IsoDateTime.nullable(),
    customerReplyMarkdown: z.string().min(1).max(20000),
    internalHandoffMarkdown: z.string().min(1).max(20000),
    decision: Decision,
    answerFingerprint: Sha256Hex.describe('sha256 over the normalised (customer reply, internal handoff) pair'),
    dataVersion: z
      .string()
      .regex(/^data:[0-9a-f]{32}$/, 'data:<32 lower-case hex digits>')
      .nullable()
      .optional()
      .describe('the versioned data (scenario catalogue, failure modes, family rules, wording) the run read; absent in messages published before it was carried'),
    clarificationSimulation: z.object({
      required: z.boolean(),
      requestedContext: z.array(z.string().min(1).max(300)).max(5),
    }),
  })
  .strict();
export type RunPublishedV1 = z.infer<typeof RunPublishedV1>;

export const runPublishedTopic = defineTopic({
  baseName: 'run.published',
  version: 1,
  description: 'Both messages of a run, the typed decision and the answer fingerprint. No execution state.',
  keyField: 'ticketKey',
  key: RunPublishedKeyV1,
  value: RunPublishedV1,
  producers: ['router'],
  consumers: ['judge', 'reporter', 'optimizer'],
});
