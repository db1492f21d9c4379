import { getMetadataArgsStorage } from 'typeorm';
import { schemaOf } from '@aoc/persistence';
import { busTablesDdl } from '@aoc/bus';
import { ALL_SERVICES } from './all-services';

/** Each role owns exactly one schema: every entity and every migration stays inside it. */
describe('schema ownership', () => {
  it.each(ALL_SERVICES.map((s) => [s.role, s] as const))('%s keeps its tables in its own schema', async (role, definition) => {
    const entities = definition.entities as unknown[];
    const tables = getMetadataArgsStorage().tables.filter((t) => entities.includes(t.target));
    expect(tables).toHaveLength(entities.length);
    const schemas = new Set(tables.map((t) => t.schema));
    // A role may keep its data through raw SQL only (no entity classes); its migrations are checked below.
    if (entities.length > 0) expect([...schemas]).toEqual([schemaOf(role)]);
    expect(definition.migrations.length).toBeGreaterThan(0);
    for (const migration of definition.migrations) {
      const statements: string[] = [];
      const runner = { query: async (sql: string) => void statements.push(sql) };
      await (new (migration as unknown as new () => { up(q: unknown): Promise<void> })()).up(runner);
      const touched = new Set(statements.flatMap((sql) => [...sql.matchAll(/"([a-z_]+)"\.(?:"[a-z_]+"|[a-z_]+)/g)].map((m) => m[1])));
      expect([...touched]).toEqual([schemaOf(role)]);
    }
  });

  it('gives every role its own inbox and outbox', () => {
    const names = ALL_SERVICES.map((s) => busTablesDdl(schemaOf(s.role)).join('\n'));
    expect(new Set(names).size).toBe(ALL_SERVICES.length);
  });
});
