import { z } from 'zod';
import { IsoDateTime, RunId, RunMode, RunTrigger, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';

export const TicketCommentV1 = z.object({
  id: z.string().min(1).max(64),
  authorRole: z.enum(['customer', 'support', 'engineer', 'bot', 'unknown']),
  visibility: z.enum(['public', 'internal']),
  createdAt: IsoDateTime,
  body: z.string().max(20000),
});
export type TicketCommentV1 = z.infer<typeof TicketCommentV1>;

/** The ticket as it was frozen at intake; later edits never change a run's input. */
export const FrozenTicketV1 = z.object({
  key: TicketKey,
  title: z.string().min(1).max(500),
  description: z.string().max(50000),
  reporterRole: z.enum(['customer', 'support', 'engineer', 'bot', 'unknown']),
  createdAt: IsoDateTime,
  labels: z.array(z.string().max(64)).max(32).default([]),
  comments: z.array(TicketCommentV1).max(200).default([]),
});
export type FrozenTicketV1 = z.infer<typeof FrozenTicketV1>;

export const TicketAnalysisRequestedKeyV1 = TicketKey;
export const TicketAnalysisRequestedV1 = z.object({
  runId: RunId,
  ticketKey: TicketKey,
  mode: RunMode,
  trigger: RunTrigger,
  requestedAt: IsoDateTime,
  cutoff: IsoDateTime.nullable().describe('Replay cutoff; null for live runs'),
  ticket: FrozenTicketV1,
});
export type TicketAnalysisRequestedV1 = z.infer<typeof TicketAnalysisRequestedV1>;

export const ticketAnalysisRequestedTopic = defineTopic({
  baseName: 'ticket.analysis-requested',
  version: 1,
  description: 'A frozen ticket to analyse, from intake (the optimizer replays frozen tickets through its own in-process chain, not this topic).',
  keyField: 'ticketKey',
  key: TicketAnalysisRequestedKeyV1,
  value: TicketAnalysisRequestedV1,
  producers: ['router'],
  // The judge reads the frozen ticket (never execution state) to judge answers in context.
  consumers: ['router', 'judge'],
});
