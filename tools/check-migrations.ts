// `npm run migrations:check`: fails when an entity changed without a migration, or when a
// database (DATABASE_URL, else a fresh embedded one) has migrations that were not run.
import { AUTH_STORE, migrateAuthStore } from '@aoc/auth';
import { createServiceDataSource, pendingSchemaChanges, schemaOf, startEmbeddedPostgres } from '@aoc/persistence';
import { migrateRole } from '@aoc/service-host';
import { ALL_SERVICES } from '@aoc/launcher';

async function main(): Promise<void> {
  const useExisting = process.argv.includes('--existing');
  const embedded = useExisting ? null : await startEmbeddedPostgres();
  const url = embedded?.url ?? process.env['DATABASE_URL'];
  if (!url) throw new Error('--existing needs DATABASE_URL');
  const problems: string[] = [];
  try {
    // Every role's schema, and the credential store every HTTP role shares.
    const stores = [
      ...ALL_SERVICES.map((d) => ({ role: d.role, schema: schemaOf(d.role), entities: d.entities, migrations: d.migrations, migrate: () => migrateRole(d, url) })),
      { role: 'auth', schema: AUTH_STORE.schema, entities: [...AUTH_STORE.entities], migrations: [...AUTH_STORE.migrations], migrate: () => migrateAuthStore(url) },
    ];
    for (const definition of stores) {
      const schema = definition.schema;
      if (!useExisting) await definition.migrate();
      const ds = createServiceDataSource({ url, schema, entities: definition.entities, migrations: definition.migrations, poolSize: 1 });
      await ds.initialize();
      try {
        const { migrations, drift } = await pendingSchemaChanges(ds, schema);
        for (const m of migrations) problems.push(`${definition.role}: migration ${m} has not been run`);
        for (const q of drift) problems.push(`${definition.role}: entities differ from migrations; missing migration would run: ${q}`);
        process.stdout.write(`${definition.role}: ${migrations.length + drift.length === 0 ? 'up to date' : 'PENDING'}\n`);
      } finally {
        await ds.destroy();
      }
    }
  } finally {
    await embedded?.stop();
  }
  if (problems.length > 0) {
    process.stderr.write(`pending migrations:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrations:check failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
