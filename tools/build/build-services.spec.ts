// The production build (build-services.ts), written to a temporary folder laid out like the images
// (node_modules next to dist/). Each role's output is CommonJS with source maps and decorator
// metadata. Its requires all resolve inside the output or to a production dependency, no workspace
// specifier is left, and it loads under plain node without a transpiler.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ROLES } from '@aoc/contracts';
import { buildRole, buildableRoles, type RoleBuild } from './build-services';

const ROOT = resolve(__dirname, '..', '..');
const production = new Set(Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const resolvesTo = (base: string) => [base, `${base}.js`, `${base}.json`, join(base, 'index.js')].some((p) => existsSync(p) && statSync(p).isFile());
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

let out: string;
const builds = new Map<string, RoleBuild>();
/** Each role's `node dist/services/<role>/main.js` with an invalid setting, run concurrently. */
const starts = new Map<string, { code: number | null; stderr: string }>();

function startWithBadConfig(build: RoleBuild): Promise<{ code: number | null; stderr: string }> {
  // An invalid setting stops the role right after every module loaded (decorators evaluated, DI
  // metadata emitted) and before it opens a connection: the failure names the key.
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], AOC_TRANSPORT: 'carrier-pigeon' };
  return new Promise((done) => {
    execFile(process.execPath, [join(build.outDir, 'main.js')], { cwd: out, env, encoding: 'utf8', timeout: 60_000 }, (error, _stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr });
    });
  });
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'aoc-build-'));
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  for (const role of ROLES) builds.set(role, await buildRole(role, { outRoot: join(out, 'dist', 'services') }));
  const results = await Promise.all(ROLES.map((role) => startWithBadConfig(builds.get(role) as RoleBuild)));
  ROLES.forEach((role, i) => starts.set(role, results[i]));
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

test('every role of libs/contracts has a service to build', () => {
  expect(buildableRoles()).toEqual([...ROLES].sort());
});

describe.each([...ROLES])('%s', (role) => {
  test('every compiled file has its source map and requires only what exists', () => {
    const built = builds.get(role) as RoleBuild;
    const problems: string[] = [];
    const files = walk(built.outDir).filter((f) => f.endsWith('.js'));
    for (const file of files) {
      const code = readFileSync(file, 'utf8');
      if (file !== join(built.outDir, 'main.js') && !(code.includes('//# sourceMappingURL=') && existsSync(`${file}.map`))) problems.push(`${file}: no source map`);
      for (const [, specifier] of code.matchAll(/\brequire(?:\.resolve)?\(\s*["']([^"']+)["']\s*\)/g)) {
        if (isBuiltin(specifier)) continue;
        if (specifier.startsWith('.')) {
          if (!resolvesTo(resolve(dirname(file), specifier))) problems.push(`${file}: ${specifier} is not in the output`);
        } else if (!production.has(packageOf(specifier))) {
          problems.push(`${file}: ${specifier} is not a production dependency`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(files.some((f) => readFileSync(f, 'utf8').includes('"design:paramtypes"'))).toBe(true);
  });

  test('main.js loads everything under plain node and reaches config parsing', () => {
    expect(readFileSync(join((builds.get(role) as RoleBuild).outDir, 'main.js'), 'utf8')).toContain(`require('./services/${role}/src/main.js')`);
    const started = starts.get(role);
    expect(started?.stderr).toContain(`aoc-${role} failed to start: aoc-${role}: invalid configuration: AOC_TRANSPORT`);
    expect(started?.code).toBe(1);
  });
});
