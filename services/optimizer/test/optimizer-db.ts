import { createServiceDataSource, startEmbeddedPostgres } from '@aoc/persistence';
import { migrateRole } from '@aoc/service-host';
import type { DataSource } from 'typeorm';
import { optimizerDefinition } from '../src/optimizer.definition';

/** A fresh embedded Postgres with the optimizer's migrations run, for specs. */
export async function startOptimizerDb(): Promise<{ ds: DataSource; stop: () => Promise<void> }> {
  const pg = await startEmbeddedPostgres();
  await migrateRole(optimizerDefinition, pg.url);
  const ds = createServiceDataSource({ url: pg.url, schema: 'optimizer', poolSize: 1 });
  await ds.initialize();
  return {
    ds,
    stop: async () => {
      await ds.destroy();
      await pg.stop();
    },
  };
}
