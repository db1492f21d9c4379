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
