/**
 * Renders kustomizations with tools/k8s/kustomize.ts (no kustomize binary needed) and validates
 * what they render (tools/k8s/validate.ts).
 *
 *   node -r ./tools/register.js tools/k8s/render.ts deploy/k8s/overlays/production > aoc.yaml
 *   node -r ./tools/register.js tools/k8s/render.ts --check deploy/k8s/overlays/dev deploy/k8s/overlays/production
 *
 * Without --check it prints the one kustomization's objects as YAML (what `kubectl kustomize`
 * prints), after validating them. With --check it prints a line per kustomization. Exits 1 when
 * any object is invalid.
 */
import { renderKustomization, toYaml } from './kustomize';
import { SCHEMA_SOURCES, validateObjects } from './validate';

function main(args: string[]): number {
  const check = args.includes('--check');
  const dirs = args.filter((a) => a !== '--check');
  if (dirs.length === 0 || (!check && dirs.length !== 1)) {
    process.stderr.write('usage: render.ts <kustomization-dir> | render.ts --check <kustomization-dir>...\n');
    return 2;
  }
  let failed = false;
  for (const dir of dirs) {
    const objects = renderKustomization(dir);
    const errors = validateObjects(objects);
    for (const error of errors) process.stderr.write(`${dir}: ${error}\n`);
    failed ||= errors.length > 0;
    if (check) {
      process.stdout.write(`${dir}: ${objects.length} objects, ${errors.length === 0 ? 'valid' : `${errors.length} errors`} (${SCHEMA_SOURCES.kubernetes.schemaVersion}, ${SCHEMA_SOURCES.keda.schemaVersion})\n`);
    } else if (errors.length === 0) {
      process.stdout.write(toYaml(objects));
    }
  }
  return failed ? 1 : 0;
}

// A closed pipe (`| head`) ends the output, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = main(process.argv.slice(2));
