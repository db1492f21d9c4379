// Contract generator: checks of the generated AsyncAPI document and JSON Schemas before anything is written.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';

export const SEVERITY_NAMES: Record<number, string> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'hint',
};

/** Validates with @asyncapi/parser; prints every diagnostic and throws when any is an error. */
export async function validateAsyncApi(doc: unknown, log: (line: string) => void = console.log): Promise<void> {
  const parser = new Parser();
  // As text: the parser gets its own copy (it annotates object inputs) and reports exact paths.
  const diagnostics = await parser.validate(JSON.stringify(doc));
  for (const d of diagnostics) {
    const where = d.path.length > 0 ? d.path.join('.') : '(root)';
    log(`  asyncapi ${SEVERITY_NAMES[d.severity] ?? String(d.severity)} [${d.code}] ${where}: ${d.message}`);
  }
  const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
  if (errors.length > 0) throw new Error(`AsyncAPI document is invalid: ${errors.length} error(s) reported by @asyncapi/parser`);
}

/** Every schema must compile under the JSON Schema 2020-12 meta-schema (ajv strict mode). */
export function validateJsonSchemas(schemas: Record<string, unknown>): void {
  const problems: string[] = [];
  for (const [file, schema] of Object.entries(schemas)) {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const s = schema as Record<string, unknown>;
    if (s['$schema'] !== 'https://json-schema.org/draft/2020-12/schema') {
      problems.push(`${file}: $schema is ${JSON.stringify(s['$schema'])}, expected the 2020-12 meta-schema`);
      continue;
    }
    if (!ajv.validateSchema(s)) {
      problems.push(`${file}: ${ajv.errorsText(ajv.errors)}`);
      continue;
    }
    try {
      ajv.compile(s);
    } catch (err) {
      problems.push(`${file}: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error(`invalid JSON Schema:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}
