import type { TicketAnalysisRequestedV1 } from '@aoc/contracts';

/** A replay request for a customer ticket with the given text (cutoff 11:00Z on 2026-11-20). */
export function analysisRequest(title: string, description: string, cutoff: string | null = '2026-11-20T11:00:00Z'): TicketAnalysisRequestedV1 {
  return {
    runId: 'run-1',
    ticketKey: 'SUP-1',
    mode: 'read',
    trigger: 'replay',
    requestedAt: '2026-11-21T00:00:00Z',
    cutoff,
    ticket: { key: 'SUP-1', title, description, reporterRole: 'customer', createdAt: '2026-11-20T10:00:00Z', labels: [], comments: [] },
  };
}
