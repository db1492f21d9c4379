import { parser } from '@prometheus-io/lezer-promql';
import { ProviderError } from '../core/provider-error';
import { validatePromQl } from '../validation/promql';

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Edit {
  at: number;
  text: string;
}

/**
 * Adds `label="value"` to every vector selector of a PromQL expression, using the Prometheus
 * grammar to find them (so strings, function names and label lists are never touched). Used to
 * turn a decrypted instance reference into a filter the caller never sees.
 */
export function withLabelMatcher(promql: string, label: string, value: string, field = 'promql'): string {
  if (!LABEL_NAME.test(label)) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: label name ${JSON.stringify(label)} is not valid`);
  const expression = validatePromQl(promql, field);
  // JSON string escaping is a subset of PromQL's double-quoted string escaping.
  const matcher = `${label}=${JSON.stringify(value)}`;
  const edits: Edit[] = [];
  const tree = parser.parse(expression);
  tree.iterate({
    enter: (node) => {
      if (node.type.name !== 'VectorSelector') return;
      const matchers = node.node.getChild('LabelMatchers');
      if (matchers) edits.push({ at: matchers.from + 1, text: `${matcher},` });
      else edits.push({ at: node.to, text: `{${matcher}}` });
      return false;
    },
  });
  if (edits.length === 0) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: the expression selects no series, so an instance reference cannot filter it`);
  let out = expression;
  for (const edit of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, edit.at) + edit.text + out.slice(edit.at);
  return validatePromQl(out, field);
}
