import type { Attributes } from '@opentelemetry/api';
import type { Role } from '@aoc/contracts';
import type { Transport } from './transport/transport';

/** What a bus span is about: one message, sent or processed by a role (in a consumer group when processed). */
export interface MessageSpanSubject {
  transport: Transport['kind'];
  role: Role;
  topic: string;
  messageId: string;
  runId?: string | null;
  group?: string;
}

/**
 * Span attributes after the OpenTelemetry messaging conventions, for the producer span of a
 * publication (`send`) and the consumer span of a processed message (`process`). The in-process
 * broker is no system the conventions name, so it gets its own.
 */
export function messagingAttributes(operation: 'send' | 'process', s: MessageSpanSubject): Attributes {
  return {
    'messaging.system': s.transport === 'kafka' ? 'kafka' : 'aoc-memory',
    'messaging.operation.type': operation,
    'messaging.destination.name': s.topic,
    ...(s.group !== undefined ? { 'messaging.consumer.group.name': s.group } : {}),
    'messaging.message.id': s.messageId,
    'aoc.role': s.role,
    ...(s.runId ? { 'aoc.run_id': s.runId } : {}),
  };
}
