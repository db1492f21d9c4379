import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import { InMemoryBroker, InMemoryTransport, type RawMessage } from '../src';
import { eventually, type BusHarness } from './bus-contract.suite';

/** In-process broker + embedded Postgres (PGlite): the one-process default. */
export class MemoryHarness implements BusHarness {
  readonly broker = new InMemoryBroker({ redeliveryDelayMs: 10 });
  private pg: EmbeddedPostgres | null = null;
  private ds: DataSource | null = null;

  async setup(): Promise<void> {
    this.pg = await startEmbeddedPostgres();
    this.ds = createServiceDataSource({ url: this.pg.url, schema: 'public', poolSize: 1 });
    await this.ds.initialize();
  }

  async teardown(): Promise<void> {
    this.broker.close();
    await this.ds?.destroy();
    await this.pg?.stop();
  }

  transport() {
    return new InMemoryTransport(this.broker);
  }

  async rawSend(topic: string, messages: { key: string | null; value: string; headers: Record<string, string> }[]) {
    this.broker.append(topic, messages);
  }

  async readUntil(topic: string, done: (m: RawMessage[]) => boolean, timeoutMs = 20000) {
    return eventually(() => {
      const ms = this.broker.messages(topic);
      return done(ms) ? ms : undefined;
    }, timeoutMs, `messages on ${topic}`);
  }

  async createTopics(topics: { name: string; partitions: number }[]) {
    for (const t of topics) this.broker.createTopic(t.name, t.partitions);
  }

  dataSource(): DataSource {
    if (!this.ds) throw new Error('harness not set up');
    return this.ds;
  }
}
