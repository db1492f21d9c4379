// deploy/k8s, the migration Jobs: applied first with all they use, running the migrate-only entry
// point on the role's database; and that entry point, on a production build (see k8s.spec.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROLES } from '@aoc/contracts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { buildRole } from '../../tools/build/build-services';
import { Rendered, ROOT, describeOverlays, egressPorts, envEntries, facts, loadCluster, matches, podLabelsOf, podSpecOf, policiesFor, read, rendered, type Labels } from './k8s-fixture';
import type { RoleFacts } from './role-facts';

const MIGRATE_SCRIPT = 'deploy/k8s/base/migrate/migrate-role.js';

loadCluster();

describeOverlays({
  overlay: (overlay, r) => {
    test('the first apply step (component!=role) holds the migration Jobs and all they use, and no role', () => {
      const first = new Rendered(overlay, r().objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] !== 'role'));
      expect(first.objects.filter((o) => ['Deployment', 'Service', 'ScaledObject', 'TriggerAuthentication'].includes(o.kind))).toEqual([]);
      expect(first.namespace).toBe(r().namespace);
      const jobs = first.all<IJob>('Job');
      expect(jobs).toHaveLength(ROLES.length);
      for (const job of jobs) {
        const pod = podSpecOf(job);
        expect(pod.serviceAccountName).toBeUndefined();
        for (const v of pod.volumes ?? []) expect(first.maybe('ConfigMap', v.configMap?.name as string)).toBeDefined();
        for (const c of pod.containers) {
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.configMapKeyRef;
            if (ref && !ref.optional) expect(first.configValue(ref.name as string, ref.key)).toBeDefined();
          }
        }
        const ports = egressPorts(policiesFor(first, podLabelsOf(job)));
        expect([...ports]).toEqual(expect.arrayContaining(['UDP/53', 'TCP/5432']));
      }
    });
  },
  role: ({ role, r, f, deployment, job, container }) => {
    describe('migration Job', () => {
      test('runs the migrate-only entry point for this role, mounted from the aoc-migrate ConfigMap', () => {
        const pod = podSpecOf(job());
        const [c] = pod.containers;
        expect(pod.restartPolicy).toBe('Never');
        expect(job().spec?.backoffLimit).toBeGreaterThan(0);
        const command = [...(c.command ?? []), ...(c.args ?? [])];
        expect(command[0]).toBe('node');
        expect(command[command.length - 1]).toBe(role);
        const script = command[command.length - 2];
        const mount = c.volumeMounts?.find((m) => m.mountPath === path.posix.dirname(script));
        expect(mount?.readOnly).toBe(true);
        const volume = pod.volumes?.find((v) => v.name === mount?.name);
        const cm = r().get<IConfigMap>('ConfigMap', volume?.configMap?.name as string);
        expect(cm.data?.[path.posix.basename(script)]).toBe(read(MIGRATE_SCRIPT));
        expect(volume?.configMap?.defaultMode).toBe(0o444);
      });

      test('with the role’s database: DATABASE_URL from the same Secret as the role, only keys the role parses', () => {
        const entries = envEntries(r(), podSpecOf(job()).containers[0]);
        expect(entries.filter((e) => !f().knownKeys.has(e.key))).toEqual([]);
        const roleDb = envEntries(r(), container()).find((e) => e.key === 'DATABASE_URL');
        expect(entries.find((e) => e.key === 'DATABASE_URL')).toEqual(roleDb);
      });

      test('its pods are not the role’s: no Deployment, Service or budget selects them', () => {
        expect(matches(deployment().spec?.selector.matchLabels as Labels, podLabelsOf(job()))).toBe(false);
      });
    });
  },
});

// ---------------------------------------------------------------------------------------------
// The migrate-only entry point, on a production build of two roles (with and without HTTP API)
// ---------------------------------------------------------------------------------------------

describe('the migrate-only entry point of the migration Jobs', () => {
  let out: string;
  let pg: EmbeddedPostgres;
  const script = () => path.join(out, 'opt', 'aoc', 'migrate', 'migrate-role.js');
  const run = (role: string, env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, ['--enable-source-maps', script(), role], { cwd: out, env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    // Laid out like an image: node_modules and dist/services/<role> in the working directory, the
    // script where the Job mounts the aoc-migrate ConfigMap.
    out = mkdtempSync(path.join(tmpdir(), 'aoc-migrate-'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'), 'dir');
    for (const role of ['reporter', 'judge']) await buildRole(role, { outRoot: path.join(out, 'dist', 'services') });
    mkdirSync(path.dirname(script()), { recursive: true });
    const cm = (rendered.get('production') as Rendered).get<IConfigMap>('ConfigMap', 'aoc-migrate');
    writeFileSync(script(), cm.data?.['migrate-role.js'] as string);
    pg = await startEmbeddedPostgres();
  }, 180_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  test.each([
    ['reporter', 'with an HTTP API: the role’s schema and the credential store; nothing the second time'],
    ['judge', 'without an HTTP API: the role’s schema only'],
  ] as const)('%s, %s', async (role: 'reporter' | 'judge', _what: string) => {
    const first = await run(role, { DATABASE_URL: pg.url });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout) as { role: string; migrations: string[]; authMigrations: string[] };
    const definition = (facts.get(role) as RoleFacts).definition;
    expect(result.role).toBe(role);
    expect(result.migrations).toEqual(definition.migrations.map((m) => m.name));
    expect(result.authMigrations.length > 0).toBe(definition.http !== undefined);
    if (!definition.http) return;
    const second = await run(role, { DATABASE_URL: pg.url });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ level: 'info', msg: 'migrated', role, migrations: [], authMigrations: [] });
  }, 120_000);

  test('refuses to run without DATABASE_URL, and without a role', async () => {
    const noDb = await run('judge', {});
    expect(noDb.code).toBe(1);
    expect(noDb.stderr).toMatch(/DATABASE_URL is not set/);
    const noRole = await run('', {});
    expect(noRole.code).not.toBe(0);
  }, 60_000);
});
