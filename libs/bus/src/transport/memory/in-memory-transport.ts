import { MessagesRejectedError, type ConsumerLag, type SubscribeOptions, type SubscriptionHandle, type Transport, type OutgoingMessage } from '../transport';
import { BrokerError, InMemoryBroker } from './in-memory-broker';

/** One service's connection to the shared in-process broker. */
export class InMemoryTransport implements Transport {
  readonly kind = 'memory' as const;
  private readonly memberships: { groupId: string; memberId: string }[] = [];

  constructor(readonly broker: InMemoryBroker) {}

  async connect(): Promise<void> {
    /* nothing to connect */
  }

  async disconnect(): Promise<void> {
    for (const m of this.memberships.splice(0)) this.broker.leave(m.groupId, m.memberId);
  }

  consumerLag(): ConsumerLag[] {
    return this.memberships.flatMap((m) => this.broker.lagOf(m.groupId, m.memberId).map((l) => ({ groupId: m.groupId, ...l })));
  }

  async send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    try {
      this.broker.append(topic, messages);
    } catch (error) {
      if (error instanceof BrokerError && error.code === 'MESSAGE_TOO_LARGE') throw new MessagesRejectedError(error.message);
      throw error;
    }
  }

  async subscribe(options: SubscribeOptions): Promise<SubscriptionHandle> {
    const memberId = this.broker.join(options.groupId, options.topics, options.handle);
    const membership = { groupId: options.groupId, memberId };
    this.memberships.push(membership);
    let member = true;
    return {
      stop: async () => {
        member = false;
        this.broker.leave(options.groupId, memberId);
        const i = this.memberships.indexOf(membership);
        if (i >= 0) this.memberships.splice(i, 1);
      },
      joined: () => member,
    };
  }
}
