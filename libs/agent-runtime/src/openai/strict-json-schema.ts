import { z } from 'zod';
import { modelError } from '../model.errors';

type JsonObject = { [key: string]: unknown };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON Schema for `response_format.json_schema` in strict mode. Strict mode needs every object
 * property to be required and no additional properties; a zod `.optional()` field cannot be
 * expressed, so it is refused (use `.nullable()`), naming the field.
 */
export function strictJsonSchema(schema: z.ZodType): JsonObject {
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as JsonObject;
  delete json['$schema'];
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, path);
      return;
    }
    if (!isObject(node)) return;
    if (node['type'] === 'object' && isObject(node['properties'])) {
      const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
      for (const name of Object.keys(node['properties'])) {
        if (!required.has(name)) {
          throw modelError('MODEL.SCHEMA_UNSUPPORTED', `output field "${path ? `${path}.` : ''}${name}" is optional; strict structured output needs .nullable() instead`, { field: `${path ? `${path}.` : ''}${name}` });
        }
      }
      node['additionalProperties'] = false;
      for (const [name, child] of Object.entries(node['properties'])) visit(child, path ? `${path}.${name}` : name);
    }
    for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems', '$defs', 'definitions']) {
      const child = node[key];
      if (key === '$defs' || key === 'definitions') {
        if (isObject(child)) for (const v of Object.values(child)) visit(v, path);
      } else if (child !== undefined) visit(child, path);
    }
  };
  visit(json, '');
  return json;
}

/** `response_format.json_schema.name`: letters, digits, `_` and `-`, at most 64. */
export function schemaName(instructionsId: string): string {
  return instructionsId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'output';
}
