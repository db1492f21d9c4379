// Pipeline benchmark: the bundled example tickets whose evidence is recorded, each copy under its own key.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { RECORDED_EXAMPLES, loadExample } from '@aoc/launcher';
import { loadRecordings } from '@aoc/service-provider-executor';
import type { AnalyzeTicketRequest } from '@aoc/service-router';
import { RUN_TAG } from '../bus/config';

export const TICKETS_DIR = join(__dirname, '..', '..', 'services', 'router', 'examples', 'tickets');

export interface ExampleTicket {
  name: string;
  request: AnalyzeTicketRequest;
}

/** Examples whose ticket file is bundled and whose target has replayable evidence in the bundled recordings. */
export function recordedTickets(): ExampleTicket[] {
  const recorded = new Set(loadRecordings().map((r) => r.target));
  const out: ExampleTicket[] = [];
  for (const example of RECORDED_EXAMPLES) {
    const path = join(TICKETS_DIR, example.ticketFile);
    if (!existsSync(path) || !recorded.has(example.target)) continue;
    const request = loadExample(path);
    if (!request.ticket) throw new Error(`${example.ticketFile} has no ticket`);
    out.push({ name: basename(example.ticketFile, '.json'), request });
  }
  if (out.length === 0) throw new Error(`no example ticket in ${TICKETS_DIR} has recorded evidence`);
  return out;
}

export interface Submission {
  example: string;
  request: AnalyzeTicketRequest;
}

/** Cycles through the examples; every copy gets a ticket key of its own (`SUP-1042-P<run>-<n>`). */
export class TicketCycle {
  private next = 0;

  constructor(private readonly examples: readonly ExampleTicket[]) {}

  take(): Submission {
    const n = this.next++;
    const { name, request } = this.examples[n % this.examples.length];
    const ticket = request.ticket;
    if (!ticket) throw new Error(`${name} has no ticket`);
    return { example: name, request: { ...request, ticket: { ...ticket, key: `${ticket.key}-P${RUN_TAG}-${n}` } } };
  }
}
