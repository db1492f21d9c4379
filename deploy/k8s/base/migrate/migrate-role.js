'use strict';
// Migrate-only entry point of a role image, for the aoc-<role>-migrate Jobs (deploy/k8s). There is
// no such entry point in the services: a role migrates its schema at boot (runServiceProcess runs
// migrateRole, then migrateAuthStore for a role with an HTTP API) and then starts. This file runs
// those two steps and exits, so that a release migrates once before its pods roll out, instead of
// several new replicas racing through the same migrations.
//
//   node /opt/aoc/migrate/migrate-role.js <role> [build-root]
//
// Plain CommonJS: the images have no transpiler. It loads only the role's own build output,
// <build-root> (default dist/services/<role> under the working directory, /app in the images),
// laid out as tools/build/build-services.ts writes it. DATABASE_URL and the rest of the host
// settings are parsed with the role's own schema (serviceConfigSchema); DATABASE_URL is required
// here, since a migration of the embedded Postgres a role falls back to would be lost at once.
// Prints one JSON line with what ran; exits non-zero on any failure (the Job retries it).
const path = require('node:path');

async function migrate(role, buildRoot = path.resolve('dist', 'services', role), env = process.env) {
  const load = (file) => require(path.join(buildRoot, file));
  const { serviceConfigSchema, migrateRole } = load('libs/service-host/src/index');
  const { loadConfig } = load('libs/config/src/index');
  const { migrateAuthStore } = load('libs/auth/src/index');
  const exported = load(path.join('services', role, 'src', `${role}.definition`));
  const found = Object.values(exported).filter((v) => typeof v === 'object' && v !== null && v.role === role && typeof v.module === 'function');
  if (found.length !== 1) throw new Error(`services/${role}/src/${role}.definition should export one ServiceDefinition of role ${role}, found ${found.length}`);
  const definition = found[0];
  const config = loadConfig(`aoc-${role}`, serviceConfigSchema, env);
  if (!config.DATABASE_URL) throw new Error(`aoc-${role}: DATABASE_URL is not set; there is no database to migrate`);
  const migrations = await migrateRole(definition, config.DATABASE_URL);
  const authMigrations = definition.http ? await migrateAuthStore(config.DATABASE_URL) : [];
  return { role, migrations, authMigrations };
}

module.exports = { migrate };

if (require.main === module) {
  const [role, buildRoot] = process.argv.slice(2);
  if (!role) {
    process.stderr.write('usage: node migrate-role.js <role> [build-root]\n');
    process.exit(2);
  }
  migrate(role, buildRoot ? path.resolve(buildRoot) : undefined).then(
    (result) => {
      process.stdout.write(`${JSON.stringify({ level: 'info', msg: 'migrated', ...result })}\n`);
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`aoc-${role} migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
