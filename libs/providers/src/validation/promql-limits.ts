import type { parser } from '@prometheus-io/lezer-promql';

/**
 * Cost and reach limits of one PromQL expression, checked on the lezer-promql tree (never on
 * the text). A query's window is bounded by its package; these bound what one evaluation of the
 * expression may read and compute, whatever window it runs over.
 */

const DAY_SECONDS = 86_400;

/**
 * How far back one evaluation may read: a range selector, a subquery range and an offset each
 * reach back, and nested ones add up (`rate(x[5m] offset 1d)[1d:5m]` reaches 2d5m). 30 days, the
 * longest window any package reads.
 */
export const MAX_PROMQL_LOOKBACK_SECONDS = 30 * DAY_SECONDS;
/**
 * Evaluations one outer step may cost through subqueries: range / resolution, multiplied through
 * nested subqueries. The 11,000 points Prometheus itself allows per series of a range query.
 */
export const MAX_PROMQL_SUBQUERY_POINTS = 11_000;
/** Subqueries inside subqueries. */
export const MAX_PROMQL_SUBQUERY_DEPTH = 2;
/** Expressions inside expressions (function calls, aggregations, operators, parentheses). */
export const MAX_PROMQL_EXPRESSION_DEPTH = 64;

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

export class PromQlLimitError extends Error {}
const refuse = (why: string): never => {
  throw new PromQlLimitError(why);
};

interface Scope {
  /** Seconds the enclosing subqueries, ranges and offsets already reach back. */
  lookback: number;
  /** Evaluations per outer step through the enclosing subqueries. */
  points: number;
  subqueries: number;
  depth: number;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { y: 365 * DAY_SECONDS, w: 7 * DAY_SECONDS, d: DAY_SECONDS, h: 3600, m: 60, s: 1, ms: 0.001 };
const DURATION = /^(?:\d+(?:y|w|d|h|ms|m|s))+$/;
const PLAIN_SECONDS = /^(?:(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:e[+-]?\d+)?|0x[0-9a-f]+)$/i;

/** `1h30m` → 5400, `300` → 300 (a bare number is seconds); refuses inf, nan and anything else. */
export function durationSeconds(literal: string): number {
  if (DURATION.test(literal)) {
    let total = 0;
    for (const m of literal.matchAll(/(\d+)(y|w|d|h|ms|m|s)/g)) total += Number(m[1]) * UNIT_SECONDS[m[2]];
    return total;
  }
  const n = PLAIN_SECONDS.test(literal) ? Number(literal.replace(/_/g, '')) : NaN;
  if (!Number.isFinite(n)) refuse(`duration ${literal.slice(0, 24)} is not a finite number of seconds`);
  return n;
}

/** `2592000` → `30d`, for messages. */
export function formatSeconds(seconds: number): string {
  if (seconds >= DAY_SECONDS && seconds % DAY_SECONDS === 0) return `${seconds / DAY_SECONDS}d`;
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${Math.round(seconds * 1000) / 1000}s`;
}

const children = (node: SyntaxNode): SyntaxNode[] => {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
};

const LITERAL = 'NumberDurationLiteralInDurationContext';
const NOT_LITERAL = 'durations must be literals such as 5m or 1h30m (duration arithmetic, step(), range(), min_of() and max_of() are not allowed)';

/** A range or resolution: one literal, nothing computed (a computed one could depend on the query's own range). */
function literalDuration(node: SyntaxNode | null, text: string): number {
  const parts = node ? children(node) : [];
  if (parts.length !== 1 || parts[0].type.name !== LITERAL) refuse(NOT_LITERAL);
  return durationSeconds(text.slice(parts[0].from, parts[0].to));
}

/** An offset: a literal with any number of signs. */
function offsetSeconds(node: SyntaxNode | null, text: string): number {
  let sign = 1;
  for (let n = node; n; ) {
    const parts = children(n);
    if (parts.length === 1 && parts[0].type.name === LITERAL) return sign * durationSeconds(text.slice(parts[0].from, parts[0].to));
    if (parts.length !== 2 || parts[0].type.name !== 'UnaryOp' || parts[1].type.name !== 'OffsetDurationExpr') break;
    if (text.slice(parts[0].from, parts[0].to) === '-') sign = -sign;
    n = parts[1];
  }
  return refuse(NOT_LITERAL);
}

function reachBack(scope: Scope, seconds: number, what: string): Scope {
  const lookback = scope.lookback + seconds;
  if (lookback > MAX_PROMQL_LOOKBACK_SECONDS) {
    refuse(`${what} makes the expression read ${formatSeconds(lookback)} back; at most ${formatSeconds(MAX_PROMQL_LOOKBACK_SECONDS)} (ranges, subquery ranges and offsets add up)`);
  }
  return { ...scope, lookback };
}

function subquery(node: SyntaxNode, scope: Scope, text: string): Scope {
  const [rangeNode, stepNode] = node.getChildren('DurationExpr');
  const range = literalDuration(rangeNode ?? null, text);
  const shown = `[${text.slice(rangeNode?.from ?? node.from, rangeNode?.to ?? node.to)}:${stepNode ? text.slice(stepNode.from, stepNode.to) : ''}]`;
  if (!stepNode) refuse(`subquery ${shown} needs an explicit resolution, e.g. [1h:1m] (the server's default could be any)`);
  const step = literalDuration(stepNode, text);
  if (!(step > 0)) refuse(`subquery ${shown} needs a positive resolution`);
  if (scope.subqueries + 1 > MAX_PROMQL_SUBQUERY_DEPTH) refuse(`subqueries may nest at most ${MAX_PROMQL_SUBQUERY_DEPTH} deep`);
  const reached = reachBack(scope, range, `subquery ${shown}`);
  const points = scope.points * (Math.floor(range / step) + 1);
  if (points > MAX_PROMQL_SUBQUERY_POINTS) {
    refuse(`subquery ${shown} evaluates ${points} points per step (nested subqueries multiply); at most ${MAX_PROMQL_SUBQUERY_POINTS}: use a coarser resolution`);
  }
  return { ...reached, points, subqueries: scope.subqueries + 1 };
}

function atModifier(node: SyntaxNode): void {
  // `@ start()` / `@ end()` pin to the query's own window; a timestamp could be any time at all.
  if (node.getChild('NumberDurationLiteral') || !node.getChild('AtModifierPreprocessors')) {
    refuse('the @ modifier with a timestamp is not allowed (it reads outside the query window); only @ start() and @ end() are');
  }
}

function visit(node: SyntaxNode, outer: Scope, text: string): void {
  let scope = outer;
  if (node.type.is('Expr')) {
    scope = { ...scope, depth: scope.depth + 1 };
    if (scope.depth > MAX_PROMQL_EXPRESSION_DEPTH) refuse(`the expression nests more than ${MAX_PROMQL_EXPRESSION_DEPTH} deep`);
  }
  switch (node.type.name) {
    case 'LineComment':
      return refuse('PromQL comments (#) are not allowed');
    case 'MatrixSelector': {
      const rangeNode = node.getChild('DurationExpr');
      scope = reachBack(scope, literalDuration(rangeNode, text), `range [${rangeNode ? text.slice(rangeNode.from, rangeNode.to) : ''}]`);
      break;
    }
    case 'SubqueryExpr':
      scope = subquery(node, scope, text);
      break;
    case 'OffsetExpr': {
      const offsetNode = node.getChild('OffsetDurationExpr');
      const seconds = offsetSeconds(offsetNode, text);
      scope = reachBack(scope, Math.abs(seconds), `offset ${offsetNode ? text.slice(offsetNode.from, offsetNode.to) : ''}`);
      break;
    }
    case 'StepInvariantExpr':
      atModifier(node);
      break;
  }
  for (const child of children(node)) visit(child, scope, text);
}

/**
 * Checks the limits on a parsed expression (`tree` from the lezer-promql parser, already free
 * of syntax errors). Throws {@link PromQlLimitError} naming the part over its limit.
 */
export function checkPromQlLimits(tree: ReturnType<typeof parser.parse>, text: string): void {
  visit(tree.topNode, { lookback: 0, points: 1, subqueries: 0, depth: 0 }, text);
}
