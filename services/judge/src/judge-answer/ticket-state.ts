import type { RunPublishedV1, TicketAnalysisRequestedV1, TicketCommentV1, TicketTimelineUpdatedV1, TimelineCommentV1, Verdict } from '@aoc/contracts';
import type { FeedbackBinding } from '@aoc/feedback';

/** A frozen ticket of one run, as the judge keeps it. Times are ISO strings. */
export interface FrozenTicket {
  runId: string;
  ticketKey: string;
  title: string;
  description: string;
  reporterRole: TicketCommentV1['authorRole'];
  ticketCreatedAt: string;
  labels: string[];
  comments: TicketCommentV1[];
  mode: RunPublishedV1['mode'];
  trigger: RunPublishedV1['trigger'];
  cutoff: string | null;
  requestedAt: string;
}

/** A published answer version (no execution state). */
export interface PublishedAnswer {
  runId: string;
  ticketKey: string;
  answerFingerprint: string;
  mode: RunPublishedV1['mode'];
  trigger: RunPublishedV1['trigger'];
  publishedAt: string;
  cutoff: string | null;
  customerReplyMarkdown: string;
  internalHandoffMarkdown: string;
  decision: RunPublishedV1['decision'];
  /** The clarification the answer asked the customer for (empty when it asked nothing). */
  requestedContext: string[];
}

/** Everything the judge knows about one ticket, as one value planning can work on. */
export interface PublishedEvaluation {
  evaluationId: string;
  revision: number;
  outcomeDigest: string | null;
}

export interface TicketState {
  ticketKey: string;
  /** Frozen tickets by run id. */
  tickets: Map<string, FrozenTicket>;
  /** Published answers, oldest first. */
  answers: PublishedAnswer[];
  timeline: { revision: number; comments: TimelineCommentV1[] } | null;
  bindings: FeedbackBinding[];
  /** Evaluations already published (never published twice). */
  evaluated: Set<string>;
  /** Evaluation ids whose input the model refused, truncated or answered invalidly. */
  blocked: Set<string>;
  /** Latest published verdict per run. */
  latestVerdicts: Map<string, Verdict>;
  /** Latest published evaluation per run (its revision and outcome digest). */
  latestPublished: Map<string, PublishedEvaluation>;
}

export function emptyTicketState(ticketKey: string): TicketState {
  return { ticketKey, tickets: new Map(), answers: [], timeline: null, bindings: [], evaluated: new Set(), blocked: new Set(), latestVerdicts: new Map(), latestPublished: new Map() };
}

export function frozenTicketOf(request: TicketAnalysisRequestedV1): FrozenTicket {
  return {
    runId: request.runId,
    ticketKey: request.ticketKey,
    title: request.ticket.title,
    description: request.ticket.description,
    reporterRole: request.ticket.reporterRole,
    ticketCreatedAt: iso(request.ticket.createdAt),
    labels: request.ticket.labels,
    comments: request.ticket.comments,
    mode: request.mode,
    trigger: request.trigger,
    cutoff: request.cutoff === null ? null : iso(request.cutoff),
    requestedAt: iso(request.requestedAt),
  };
}

export function publishedAnswerOf(run: RunPublishedV1): PublishedAnswer {
  return {
    runId: run.runId,
    ticketKey: run.ticketKey,
    answerFingerprint: run.answerFingerprint,
    mode: run.mode,
    trigger: run.trigger,
    publishedAt: iso(run.publishedAt),
    cutoff: run.cutoff === null ? null : iso(run.cutoff),
    customerReplyMarkdown: run.customerReplyMarkdown,
    internalHandoffMarkdown: run.internalHandoffMarkdown,
    decision: run.decision,
    requestedContext: run.clarificationSimulation.requestedContext,
  };
}

/** Normalises an ISO timestamp (any offset) to UTC `...Z`, as the database returns it. */
export function iso(value: string | Date): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export type JudgeEvent =
  | { kind: 'ticket'; request: TicketAnalysisRequestedV1 }
  | { kind: 'answer'; run: RunPublishedV1 }
  | { kind: 'timeline'; timeline: TicketTimelineUpdatedV1 };

/**
 * The state after an event, without touching the database: what the handler will have written.
 * The prepare step uses it to call the model before the transaction; the handler recomputes the
 * same plan from the stored state and only reuses a result whose input digest matches.
 */
export function applyEvent(state: TicketState, event: JudgeEvent): TicketState {
  if (event.kind === 'ticket') {
    if (state.tickets.has(event.request.runId)) return state;
    const tickets = new Map(state.tickets);
    tickets.set(event.request.runId, frozenTicketOf(event.request));
    return { ...state, tickets };
  }
  if (event.kind === 'answer') {
    if (state.answers.some((a) => a.runId === event.run.runId)) return state;
    return { ...state, answers: sortAnswers([...state.answers, publishedAnswerOf(event.run)]) };
  }
  if (state.timeline && state.timeline.revision >= event.timeline.revision) return state;
  return { ...state, timeline: { revision: event.timeline.revision, comments: event.timeline.comments } };
}

export function sortAnswers(answers: PublishedAnswer[]): PublishedAnswer[] {
  return [...answers].sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt) || a.runId.localeCompare(b.runId));
}
