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

/** Series names with their label names, and the values of labels whose values are a fixed set. */
export class KnownSeries extends Map<string, Set<string>> {
  /** series → label → every value it can take (only labels the processes start at 0). */
  readonly labelValues = new Map<string, Map<string, Set<string>>>();
}

/** The reaper's actions, which engine's Reaper starts at 0 (reaper.ts REAPER_ACTIONS). */
const REAPER_ACTIONS = ['requeued', 'failed', 'dispatched', 'cancel-notice'];

/**
 * Every series name a Switchyard process can expose, with its labels: the real registry of
 * createMetrics, with every source attached and every fixed label set started as the apps do,
 * and Node's default metrics. A histogram family F is queried as F_bucket (with `le`), F_sum and
 * F_count.
 */
export async function knownSeries(): Promise<KnownSeries> {
  const metrics = createMetrics({ service: 'check' });
  metrics.tasks.collectQueues(() => []);
  metrics.push.collectOutbox(() => ({ pending: 0, oldestAgeSeconds: 0 }));
  metrics.push.initOutcomes();
  metrics.push.inFlight(0);
  metrics.resources.observePgPool({ totalCount: 0, idleCount: 0, waitingCount: 0 });
  metrics.resources.observeRedis(() => true);
  for (const action of REAPER_ACTIONS) metrics.tasks.reaperAction(action, 0);
  const series = new KnownSeries();
  for (const family of await metrics.registry.getMetricsAsJSON()) {
    const byLabel = new Map<string, Set<string>>();
    for (const { labels } of family.values)
      for (const [label, value] of Object.entries(labels)) {
        if (label === 'le' || label === 'service') continue;
        const set = byLabel.get(label) ?? new Set<string>();
        set.add(String(value));
        byLabel.set(label, set);
      }
    const names =
      String(family.type) === 'histogram'
        ? ['_bucket', '_sum', '_count'].map((s) => family.name + s)
        : [family.name];
    for (const name of names) series.labelValues.set(name, byLabel);
  }
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
export function checkExpr(rawExpr: string, series: KnownSeries): ExprReport {
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
          if (!label) continue;
          if (!known.has(text(label))) {
            errors.push(`${name} has no label ${text(label)}`);
            continue;
          }
          // An exact match on a label whose values are a fixed set must name one of them.
          const exact = matcher.getChild('MatchOp')?.getChild('EqlSingle');
          const literal = matcher.getChild('StringLiteral');
          const values = series.labelValues.get(name)?.get(text(label));
          const value = literal ? (JSON.parse(text(literal)) as string) : undefined;
          if (exact && values && value !== undefined && !values.has(value))
            errors.push(`${name}{${text(label)}} is never ${JSON.stringify(value)}`);
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
function outputLabels(node: SyntaxNode, expr: string, series: KnownSeries): Set<string> {
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
