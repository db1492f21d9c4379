/**
 * Production build of the role services (issue 21): each role compiles to plain CommonJS in
 * dist/services/<role>/ and starts with `node dist/services/<role>/main.js`, without a runtime
 * transpiler.
 *
 *   node -r ./tools/register.js tools/build/build-services.ts [role ...]   (default: every role)
 *   npx nx build @aoc/service-<role>      (the Nx target runs this for one role, cached)
 *   npm run build                         (every role)
 *
 * How it works:
 * - SWC compiles with the workspace .swcrc (legacy decorators plus decorator metadata, which NestJS DI
 *   needs). @swc-node/register runs the sources with the same settings, so the build behaves like the
 *   dev runtime. Type checking stays with `npm run typecheck`, which keeps the build to seconds.
 * - Only files the role loads at runtime are compiled. The walk starts at services/<role>/src/main.ts
 *   and follows the `require`s of the compiled output, so type-only imports and spec files are left out.
 * - Workspace packages (`@aoc/<lib>`, whose package.json `main` is TypeScript) are compiled into the
 *   same output with the repository layout (dist/services/<role>/libs/<lib>/src/...), and their
 *   specifiers are rewritten to relative paths to the compiled files.
 * - Any other bare specifier must be a production dependency of the root package.json, which is what
 *   `npm ci --omit=dev` installs in the images. A devDependency or an undeclared package fails the build.
 * - Data read at runtime is copied with the same layout: the `data/` and `recordings/` folders of
 *   every workspace package the role uses, and versioned-data.manifest.json with every file it lists
 *   when @aoc/versioned-data is used (repoRoot() finds the manifest next to main.js).
 * - Separate source maps (.js.map, with sources content). Start node with --enable-source-maps to
 *   get TypeScript positions in stack traces.
 */
import { transformFile, type Options } from '@swc/core';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
export const OUT_DIR = join(ROOT, 'dist', 'services');
/** Folders of a workspace package that its code reads at runtime (by repository path or __dirname). */
const ASSET_DIRS = ['data', 'recordings'] as const;
const MANIFEST = 'versioned-data.manifest.json';

interface RootPackage {
  workspaces: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

export interface Workspace {
  name: string;
  dir: string;
  main: string;
}

export interface RoleBuild {
  role: string;
  outDir: string;
  files: number;
  packages: string[];
  externals: string[];
  ms: number;
}

const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as RootPackage;
const swcrc = JSON.parse(readFileSync(join(ROOT, '.swcrc'), 'utf8')) as Options & { $schema?: string };
delete swcrc.$schema;

/** Workspace packages by name, from the root package.json `workspaces` globs (`dir/*` or a plain dir). */
function workspaces(): Map<string, Workspace> {
  const dirs: string[] = [];
  for (const pattern of rootPackage.workspaces) {
    if (pattern.endsWith('/*')) {
      const parent = join(ROOT, pattern.slice(0, -2));
      for (const entry of readdirSync(parent)) dirs.push(join(parent, entry));
    } else {
      dirs.push(join(ROOT, pattern));
    }
  }
  const out = new Map<string, Workspace>();
  for (const dir of dirs) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; main?: string };
    out.set(pkg.name, { name: pkg.name, dir, main: join(dir, pkg.main ?? 'index.ts') });
  }
  return out;
}

/** The roles that can be built: every services/<role> with a src/main.ts. */
export function buildableRoles(): string[] {
  return readdirSync(join(ROOT, 'services'))
    .filter((role) => existsSync(join(ROOT, 'services', role, 'src', 'main.ts')))
    .sort();
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** Node's resolution of a relative path, applied to the TypeScript sources. */
function resolveSource(base: string): string | null {
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (isFile(candidate) && (candidate.endsWith('.ts') || candidate.endsWith('.json') || candidate.endsWith('.js'))) return candidate;
  }
  return null;
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** `require("x")` and `require.resolve("x")` in SWC's CommonJS output (dynamic `import()` becomes `require`). */
const REQUIRE = /\brequire(\.resolve)?\(\s*(["'])([^"'\n]+)\2\s*\)/g;

const compiled = new Map<string, { code: string; map: string | undefined }>();

async function compile(source: string): Promise<{ code: string; map: string | undefined }> {
  const cached = compiled.get(source);
  if (cached) return cached;
  const result = await transformFile(source, { ...swcrc, swcrc: false, configFile: false, sourceMaps: true, inlineSourcesContent: true, filename: source });
  const out = { code: result.code, map: result.map };
  compiled.set(source, out);
  return out;
}

export interface BuildOptions {
  /** Where the role folders go; dist/services by default. */
  outRoot?: string;
  packages?: Map<string, Workspace>;
}

/** Compiles one role and what it loads into <outRoot>/<role> (dist/services/<role>). */
export async function buildRole(role: string, options: BuildOptions = {}): Promise<RoleBuild> {
  const started = Date.now();
  const packages = options.packages ?? workspaces();
  const entry = join(ROOT, 'services', role, 'src', 'main.ts');
  if (!isFile(entry)) throw new Error(`${role}: ${relative(ROOT, entry)} not found`);
  const outDir = join(options.outRoot ?? OUT_DIR, role);
  rmSync(outDir, { recursive: true, force: true });
  const outPath = (source: string) => join(outDir, relative(ROOT, source)).replace(/\.ts$/, '.js');
  const production = new Set(Object.keys(rootPackage.dependencies ?? {}));
  const development = new Set(Object.keys(rootPackage.devDependencies ?? {}));
  const byDir = [...packages.values()].sort((a, b) => b.dir.length - a.dir.length);
  const packageOf = (file: string) => byDir.find((w) => file.startsWith(w.dir + sep));

  const seen = new Set<string>([entry]);
  const queue = [entry];
  const enqueue = (source: string) => {
    if (seen.has(source)) return;
    seen.add(source);
    queue.push(source);
  };
  const usedPackages = new Set<string>();
  const externals = new Set<string>();
  const errors: string[] = [];

  const emit = async (source: string) => {
    const owner = packageOf(source);
    if (owner) usedPackages.add(owner.name);
    const target = outPath(source);
    mkdirSync(dirname(target), { recursive: true });
    if (!source.endsWith('.ts')) {
      copyFileSync(source, target);
      return;
    }
    const { code, map } = await compile(source);
    const rewritten = code.replace(REQUIRE, (call: string, resolveCall: string | undefined, quote: string, specifier: string) => {
      const where = relative(ROOT, source);
      if (isBuiltin(specifier)) return call;
      if (specifier.startsWith('.')) {
        const dep = resolveSource(resolve(dirname(source), specifier));
        if (!dep) errors.push(`${where}: cannot resolve ${specifier}`);
        else enqueue(dep);
        return call;
      }
      const name = packageNameOf(specifier);
      const workspace = packages.get(name);
      if (workspace) {
        const sub = specifier.slice(name.length + 1);
        const dep = sub ? resolveSource(join(workspace.dir, sub)) : resolveSource(workspace.main);
        if (!dep) {
          errors.push(`${where}: cannot resolve ${specifier}`);
          return call;
        }
        enqueue(dep);
        let path = relative(dirname(target), outPath(dep)).split(sep).join('/');
        if (!path.startsWith('.')) path = `./${path}`;
        return `require${resolveCall ?? ''}(${quote}${path}${quote})`;
      }
      if (production.has(name)) externals.add(name);
      else if (development.has(name)) errors.push(`${where}: requires ${name}, a devDependency (the images install production dependencies only)`);
      else errors.push(`${where}: requires ${name}, which the root package.json does not declare`);
      return call;
    });
    const mapName = `${basename(target)}.map`;
    writeFileSync(target, `${rewritten}\n//# sourceMappingURL=${mapName}\n`);
    if (map) {
      const parsed = JSON.parse(map) as { sources: string[]; file?: string };
      parsed.sources = [relative(dirname(target), source).split(sep).join('/')];
      parsed.file = basename(target);
      writeFileSync(`${target}.map`, JSON.stringify(parsed));
    }
  };

  // Breadth-first, one wave at a time: a wave's files compile in parallel on SWC's thread pool.
  while (queue.length > 0) {
    const wave = queue.splice(0, queue.length);
    await Promise.all(wave.map((source) => emit(source)));
  }
  if (errors.length > 0) throw new Error(`${role}: build failed:\n  ${[...new Set(errors)].join('\n  ')}`);

  for (const name of usedPackages) {
    const workspace = packages.get(name);
    if (!workspace) continue;
    for (const asset of ASSET_DIRS) {
      const from = join(workspace.dir, asset);
      if (existsSync(from)) cpSync(from, join(outDir, relative(ROOT, from)), { recursive: true });
    }
  }
  if (usedPackages.has('@aoc/versioned-data')) {
    copyFileSync(join(ROOT, MANIFEST), join(outDir, MANIFEST));
    const manifest = JSON.parse(readFileSync(join(ROOT, MANIFEST), 'utf8')) as { files: { path: string }[] };
    for (const file of manifest.files) {
      mkdirSync(dirname(join(outDir, file.path)), { recursive: true });
      copyFileSync(join(ROOT, file.path), join(outDir, file.path));
    }
  }
  // The output is CommonJS whatever the enclosing package says, and main.js is the one entry point.
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify({ name: `aoc-${role}`, private: true, type: 'commonjs', main: 'main.js' }, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'main.js'),
    `'use strict';\n// aoc-${role}: node --enable-source-maps dist/services/${role}/main.js (built by tools/build/build-services.ts)\nrequire('./services/${role}/src/main.js');\n`,
  );
  return { role, outDir, files: seen.size, packages: [...usedPackages].sort(), externals: [...externals].sort(), ms: Date.now() - started };
}

async function main(argv: string[]): Promise<void> {
  const known = buildableRoles();
  const roles = argv.length > 0 ? argv : known;
  const unknown = roles.filter((r) => !known.includes(r));
  if (unknown.length > 0) throw new Error(`unknown role(s) ${unknown.join(', ')}; roles: ${known.join(', ')}`);
  const packages = workspaces();
  const started = Date.now();
  for (const role of roles) {
    const built = await buildRole(role, { packages });
    process.stdout.write(`built ${role}: ${built.files} files, ${built.packages.length} workspace packages -> ${relative(process.cwd(), built.outDir)} (${built.ms} ms)\n`);
  }
  if (roles.length > 1) process.stdout.write(`built ${roles.length} roles in ${Date.now() - started} ms\n`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
