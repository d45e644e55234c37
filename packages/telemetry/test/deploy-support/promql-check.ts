import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';
import { createMetrics } from '../../src/index.ts';

/** Labels Prometheus puts on every scraped series, and `service`, which every process adds. */
const TARGET_LABELS = ['job', 'instance', 'service'];

/** Series Prometheus makes itself for every target. */
const SYNTHETIC: Record<string, string[]> = {
  up: [],
  scrape_duration_seconds: [],
  scrape_samples_scraped: [],
};

/**
 * Every series name a Switchyard process can expose, with its labels: the real registry of
 * createMetrics, with every source attached as the apps attach them, and Node's default metrics.
 * A histogram family F is queried as F_bucket (with `le`), F_sum and F_count.
 */
export async function knownSeries(): Promise<Map<string, Set<string>>> {
  const metrics = createMetrics({ service: 'check' });
  metrics.tasks.collectQueues(() => []);
  metrics.push.collectOutbox(() => ({ pending: 0, oldestAgeSeconds: 0 }));
  metrics.push.inFlight(0);
  metrics.resources.observePgPool({ totalCount: 0, idleCount: 0, waitingCount: 0 });
  metrics.resources.observeRedis(() => true);
  const series = new Map<string, Set<string>>();
  for (const metric of metrics.registry.getMetricsAsArray()) {
    // prom-client's metric objects: the family's name, its label names, and get() for its type.
    const { name, labelNames = [] } = metric as unknown as { name: string; labelNames?: string[] };
    const labels = new Set([...labelNames, ...TARGET_LABELS]);
    const { type } = await (metric as unknown as { get(): Promise<{ type: string }> }).get();
    if (type === 'histogram') {
      series.set(`${name}_bucket`, new Set([...labels, 'le']));
      series.set(`${name}_sum`, labels);
      series.set(`${name}_count`, labels);
    } else series.set(name, labels);
  }
  for (const [name, labels] of Object.entries(SYNTHETIC))
    series.set(name, new Set([...labels, ...TARGET_LABELS]));
  return series;
}

/** Grafana's interval variables, as a query Prometheus would receive them. */
function withGrafanaVariables(expr: string): string {
  return expr.replace(/\$__(rate_interval|interval|range)\b/g, '5m');
}

export interface ExprReport {
  errors: string[];
  /** The metric names the expression reads. */
  metrics: string[];
  /** The labels the expression's result series keep (for `{{ $labels.x }}` in annotations). */
  labels: Set<string>;
}

/**
 * Parses a PromQL expression with Prometheus's own grammar (@prometheus-io/lezer-promql, the
 * parser of Prometheus's web UI) and checks it against the series the platform exposes: no
 * syntax error, every metric known, every label matched on is one of its metric's labels, and
 * every `by (...)` label is one the expression's metrics carry.
 */
export function checkExpr(rawExpr: string, series: Map<string, Set<string>>): ExprReport {
  const expr = withGrafanaVariables(rawExpr);
  const errors: string[] = [];
  const metrics: string[] = [];
  const labels = new Set<string>();
  const grouping: string[] = [];
  const text = (node: SyntaxNode) => expr.slice(node.from, node.to);
  parser.parse(expr).iterate({
    enter(ref) {
      if (ref.type.isError) {
        errors.push(`syntax error at ${ref.from}: ${JSON.stringify(expr.slice(ref.from, ref.from + 20))}`);
        return;
      }
      const node = ref.node;
      if (node.name === 'VectorSelector') {
        const identifier = node.getChild('Identifier');
        if (!identifier) return;
        const name = text(identifier);
        metrics.push(name);
        const known = series.get(name);
        if (!known) {
          errors.push(`unknown metric ${name}`);
          return;
        }
        for (const label of known) labels.add(label);
        for (const matcher of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
          const label = matcher.getChild('LabelName');
          if (label && !known.has(text(label))) errors.push(`${name} has no label ${text(label)}`);
        }
      }
      if (node.name === 'GroupingLabels')
        for (const label of node.getChildren('LabelName')) grouping.push(text(label));
    },
  });
  for (const label of grouping)
    if (!labels.has(label)) errors.push(`grouped by ${label}, which none of ${metrics.join(', ')} carries`);
  if (metrics.length === 0) errors.push('reads no metric');
  const tree = parser.parse(expr);
  const kept = errors.length > 0 ? new Set<string>() : outputLabels(tree.topNode, expr, series);
  return { errors, metrics, labels: kept };
}

/**
 * The labels the expression's result series carry, as far as alert annotations care: an
 * aggregation keeps its `by` labels (or none), a binary operation its left side's, a function
 * its vector argument's (histogram_quantile without `le`), a selector its metric's.
 */
function outputLabels(node: SyntaxNode, expr: string, series: Map<string, Set<string>>): Set<string> {
  const text = (n: SyntaxNode) => expr.slice(n.from, n.to);
  const exprChildren = (n: SyntaxNode) => {
    const out: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) if (EXPRESSIONS.has(c.name)) out.push(c);
    return out;
  };
  switch (node.name) {
    case 'PromQL':
    case 'ParenExpr':
    case 'SubqueryExpr':
    case 'UnaryExpr':
    case 'MatrixSelector':
    case 'BinaryExpr': {
      const first = exprChildren(node)[0];
      return first ? outputLabels(first, expr, series) : new Set();
    }
    case 'VectorSelector': {
      const identifier = node.getChild('Identifier');
      return new Set(identifier ? series.get(text(identifier)) : []);
    }
    case 'AggregateExpr': {
      const modifier = node.getChild('AggregateModifier');
      const grouped = (modifier?.getChild('GroupingLabels')?.getChildren('LabelName') ?? []).map(text);
      if (!modifier) return new Set();
      if (modifier.getChild('By')) return new Set(grouped);
      const body = node.getChild('FunctionCallBody');
      const inner = body ? exprChildren(body).at(-1) : undefined;
      const all = inner ? outputLabels(inner, expr, series) : new Set<string>();
      for (const label of grouped) all.delete(label);
      return all;
    }
    case 'FunctionCall': {
      const body = node.getChild('FunctionCallBody');
      const args = body ? exprChildren(body) : [];
      const vector = args.at(-1);
      const labels = vector ? outputLabels(vector, expr, series) : new Set<string>();
      if (node.getChild('FunctionIdentifier')?.getChild('HistogramQuantile')) labels.delete('le');
      return labels;
    }
    default:
      return new Set();
  }
}

const EXPRESSIONS = new Set([
  'AggregateExpr',
  'BinaryExpr',
  'FunctionCall',
  'MatrixSelector',
  'NumberDurationLiteral',
  'ParenExpr',
  'StringLiteral',
  'SubqueryExpr',
  'UnaryExpr',
  'VectorSelector',
]);
