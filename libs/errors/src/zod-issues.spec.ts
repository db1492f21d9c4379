import { z } from 'zod';
import { fieldIssues, issueField, issuesText } from './zod-issues';

describe('zod issues', () => {
  const schema = z.object({ endpoint: z.object({ port: z.number().int() }), tags: z.array(z.string()) }).strict();
  const issues = () => {
    const r = schema.safeParse({ endpoint: { port: 'x' }, tags: ['a', 3], extra: 1 });
    if (r.success) throw new Error('expected a failure');
    return r.error.issues;
  };

  it('names each field by its dotted path, array indexes included, and the whole value by the root given', () => {
    expect(fieldIssues(issues()).map((i) => i.field)).toEqual(['endpoint.port', 'tags.1', '(root)']);
    expect(issueField({ path: [] }, '(config)')).toBe('(config)');
  });

  it('tells them in one line, field first', () => {
    expect(issuesText(issues(), '(body)')).toMatch(/^endpoint\.port: .+; tags\.1: .+; \(body\): .*extra/);
  });
});
