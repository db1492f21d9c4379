import { parser } from '@prometheus-io/lezer-promql';
import { ProviderError } from '../core/provider-error';
import { PromQlLimitError, checkPromQlLimits } from './promql-limits';

export const MAX_PROMQL_LENGTH = 4000;

/**
 * Parses PromQL with the Prometheus project's own grammar; rejects anything that is not one valid
 * expression or that is over the limits of `promql-limits.ts` (how far back it reads, subquery
 * points and nesting, `@` with a timestamp, comments).
 */
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
  try {
    checkPromQlLimits(tree, trimmed);
  } catch (error) {
    if (error instanceof PromQlLimitError) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${error.message}`);
    // A checker bug must still refuse.
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: PromQL could not be checked`);
  }
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
  parser.parse(expression).iterate({
    enter: (node) => {
      if (node.type.name !== 'VectorSelector') return;
      const bound = matchersOf(node.node, expression).some((m) => m.op === 'EqlSingle' && m.label === label && m.value === value);
      if (!bound) out.push(expression.slice(node.from, node.to).slice(0, 80));
      return false;
    },
  });
  return out;
}

interface Matcher {
  label: string;
  /** The grammar's name of the operator: `EqlSingle` (=), `EqlRegex` (=~), `Neq`, `NeqRegex`. */
  op: string | undefined;
  /** The matched string, unquoted; null when it does not decode. */
  value: string | null;
}

type SyntaxNode = NonNullable<ReturnType<ReturnType<typeof parser.parse>['topNode']['getChild']>>;

/** The label matchers of one vector selector. */
function matchersOf(selector: SyntaxNode, expression: string): Matcher[] {
  const text = (n: { from: number; to: number }) => expression.slice(n.from, n.to);
  const matchers = selector.getChild('LabelMatchers');
  const out: Matcher[] = [];
  for (const m of matchers ? [...matchers.getChildren('UnquotedLabelMatcher'), ...matchers.getChildren('QuotedLabelMatcher')] : []) {
    const name = m.getChild('LabelName') ?? m.getChild('QuotedLabelName');
    const literal = m.getChild('StringLiteral');
    if (!name || !literal) continue;
    let value: unknown = null;
    try {
      value = JSON.parse(text(literal).replace(/^'(.*)'$/s, '"$1"'));
    } catch {
      value = null;
    }
    out.push({ label: text(name).replace(/^"|"$/g, ''), op: m.getChild('MatchOp')?.firstChild?.type.name, value: typeof value === 'string' ? value : null });
  }
  return out;
}

/** The equality and regex matchers (`=`, `=~`) of the first vector selector of `name`, label to value. */
export function selectorLabels(expression: string, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  let done = false;
  parser.parse(expression).iterate({
    enter: (node) => {
      if (done || node.type.name !== 'VectorSelector') return;
      const id = node.node.getChild('Identifier');
      if (!id || expression.slice(id.from, id.to) !== name) return false;
      for (const m of matchersOf(node.node, expression)) if ((m.op === 'EqlSingle' || m.op === 'EqlRegex') && m.value !== null) out[m.label] = m.value;
      done = true;
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
