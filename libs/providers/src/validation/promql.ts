import { parser } from '@prometheus-io/lezer-promql';
import { ProviderError } from '../core/provider-error';

export const MAX_PROMQL_LENGTH = 4000;

/** Parses PromQL with the Prometheus project's own grammar; rejects anything that is not one valid expression. */
export function validatePromQl(expression: string, field = 'query'): string {
  const trimmed = expression.trim();
  if (trimmed.length === 0) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: PromQL expression is empty`);
  if (trimmed.length > MAX_PROMQL_LENGTH) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: PromQL expression is longer than ${MAX_PROMQL_LENGTH} characters`);
  const tree = parser.parse(trimmed);
  let errorAt: number | null = null;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError && errorAt === null) errorAt = node.from;
    },
  });
  if (errorAt !== null) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: PromQL does not parse near character ${errorAt + 1}`);
  return trimmed;
}

/** Label values interpolated into PromQL must not be able to close the matcher. */
export function promLabelValue(value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(value)) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'target is not a safe label value');
  return value;
}

/**
 * Vector selectors of a PromQL expression that lack an exact `label="value"` matcher. One endpoint
 * serves many targets, so each selector must name the frozen one: a negative matcher, a regex or
 * a second unbound selector (`… or up`) would read others.
 */
export function unboundSelectors(expression: string, label: string, value: string): string[] {
  const out: string[] = [];
  const text = (n: { from: number; to: number }) => expression.slice(n.from, n.to);
  parser.parse(expression).iterate({
    enter: (node) => {
      if (node.type.name !== 'VectorSelector') return;
      let bound = false;
      const matchers = node.node.getChild('LabelMatchers');
      for (const m of matchers ? [...matchers.getChildren('UnquotedLabelMatcher'), ...matchers.getChildren('QuotedLabelMatcher')] : []) {
        const name = m.getChild('LabelName') ?? m.getChild('QuotedLabelName');
        const op = m.getChild('MatchOp')?.firstChild?.type.name;
        const literal = m.getChild('StringLiteral');
        if (!name || !literal || op !== 'EqlSingle') continue;
        let literalValue: unknown = null;
        try {
          literalValue = JSON.parse(text(literal).replace(/^'(.*)'$/s, '"$1"'));
        } catch {
          literalValue = null;
        }
        if (text(name).replace(/^"|"$/g, '') === label && literalValue === value) bound = true;
      }
      if (!bound) out.push(text(node).slice(0, 80));
      return false;
    },
  });
  return out;
}

/** Metric names of the vector selectors of a PromQL expression, in order, without duplicates. */
export function metricNamesOf(expression: string): string[] {
  const out: string[] = [];
  parser.parse(expression).iterate({
    enter: (node) => {
      if (node.type.name !== 'VectorSelector') return;
      const id = node.node.getChild('Identifier');
      const name = id ? expression.slice(id.from, id.to) : null;
      if (name && !out.includes(name)) out.push(name);
      return false;
    },
  });
  return out;
}
