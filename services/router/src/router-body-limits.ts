import { MAX_MESSAGE_BYTES, TICKET_KEY_MAX_LENGTH } from '@aoc/contracts';
import { MAX_BACKFILL } from './collect-timelines/collector-options';

/**
 * The router's routes whose JSON bodies may exceed the edge's default, each limit derived from what
 * the body becomes; publish-read keeps the default (three short fields).
 */
export const ROUTER_BODY_LIMITS: Readonly<Record<string, number>> = {
  // The ticket in the body travels as one ticket.analysis-requested message: a body larger than any
  // bus message is refused before it is read (intake still cuts a smaller but oversized ticket to the contract).
  'POST /v1/tickets/analyze': MAX_MESSAGE_BYTES,
  // At most MAX_BACKFILL ticket keys, each quoted and separated, plus the other fields.
  'POST /v1/timelines/collect': MAX_BACKFILL * (TICKET_KEY_MAX_LENGTH + 3) + 1024,
};
