import { z } from 'zod';
import { schemaName, strictJsonSchema } from './strict-json-schema';

describe('strictJsonSchema', () => {
  it('closes every object and keeps nullable fields required', () => {
    const schema = strictJsonSchema(z.object({ a: z.array(z.object({ b: z.string().nullable() })), c: z.enum(['x', 'y']) }));
    expect(schema).toMatchObject({
      type: 'object',
      required: ['a', 'c'],
      additionalProperties: false,
      properties: { a: { type: 'array', items: { type: 'object', required: ['b'], additionalProperties: false } } },
    });
    expect(schema['$schema']).toBeUndefined();
  });

  it('makes a name the API accepts', () => {
    expect(schemaName('judge.compare-answers')).toBe('judge_compare-answers');
  });
});
