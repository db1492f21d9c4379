/**
 * Generates the published contract artefacts from libs/contracts:
 *
 *   docs/topics/<file>.schema.json          one JSON Schema (draft 2020-12) per entry of jsonSchemas()
 *   docs/topics/asyncapi.json               asyncApiDocument(<root package.json version>), AsyncAPI 3.0
 *   docs/topics/README.md                   human-readable topic reference
 *   deploy/kafka/acl-matrix.generated.json  brokerAclMatrix(), input of deploy/local/provision-kafka.ts
 *
 * docs/topics is owned entirely by this generator: files there that it does not produce are removed.
 *
 * Usage (from the repository root):
 *   npm run contracts:generate    write the files (only those whose content changed)
 *   npm run contracts:check       write nothing; exit 1 listing every stale, missing or extra file
 *
 * Both modes first validate the AsyncAPI document with @asyncapi/parser (any error-severity
 * diagnostic fails the run) and every JSON Schema against the 2020-12 meta-schema.
 * Output is deterministic: object keys sorted recursively, 2-space indentation, trailing newline.
 */
import { ACL_MATRIX_FILE, REPO_ROOT, TOPICS_DIR } from './contracts/paths';
import { buildOutputs, compare, report, rootVersion, write } from './contracts/outputs';

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    console.error(`unknown argument(s): ${unknown.join(' ')}\nusage: generate-contracts.ts [--check]`);
    return 2;
  }
  const check = argv.includes('--check');
  const version = rootVersion(REPO_ROOT);
  const files = await buildOutputs(version);
  const drift = compare(REPO_ROOT, files);
  const changed = drift.missing.length + drift.stale.length + drift.extra.length;

  if (check) {
    if (changed === 0) {
      console.log(`contracts:check: ${files.size} generated files are up to date (${TOPICS_DIR}/, ${ACL_MATRIX_FILE}).`);
      return 0;
    }
    console.error(`contracts:check: ${changed} generated file(s) differ from libs/contracts:`);
    for (const line of report(drift)) console.error(line);
    console.error('Run `npm run contracts:generate` and commit the result.');
    return 1;
  }

  write(REPO_ROOT, files, drift);
  for (const line of report(drift)) console.log(line);
  console.log(
    `contracts:generate: ${files.size} files (${drift.missing.length} created, ${drift.stale.length} updated, ` +
      `${drift.extra.length} removed, ${files.size - drift.missing.length - drift.stale.length} unchanged); contracts version ${version}.`,
  );
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(`generate-contracts failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
