// deploy/observability validated without Prometheus or Grafana running: every alert and panel
// query parsed with Prometheus's own PromQL grammar and checked against the series the platform
// really exposes (a misspelled metric or label would alert on nothing, silently), the rules'
// shape, the Operator copy of the rules, and the wiring into docker-compose and Kubernetes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkExpr, knownSeries, type KnownSeries } from './deploy-support/promql-check.ts';
import { findPromtool, promtoolSkipReason } from './deploy-support/promtool.ts';
import {
  loadYamlDocuments,
  parseYaml,
  readRepoFile,
  REPO_ROOT,
  repoFileExists,
} from './deploy-support/repo-files.ts';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string; description?: string };
}
interface RuleGroup {
  name: string;
  rules: Rule[];
}
interface Panel {
  id: number;
  type: string;
  title?: string;
  description?: string;
  datasource?: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Array<{ expr: string; refId: string }>;
}

const DIR = 'deploy/observability';
const yamlOf = <T>(file: string) => parseYaml(`${DIR}/${file}`)[0]!.object as T;
const alerts = yamlOf<{ groups: RuleGroup[] }>('alerts.yml');
const rules = alerts.groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(readRepoFile(`${DIR}/grafana/dashboards/switchyard.json`)) as {
  uid: string;
  panels: Panel[];
};
const compose = parseYaml('docker-compose.yml')[0]!.object as {
  services: Record<
    string,
    {
      profiles?: string[];
      volumes?: string[];
      environment?: Record<string, string | number>;
      depends_on?: Record<string, { condition: string }>;
    }
  >;
};
const services = compose.services;

let series: KnownSeries;
beforeAll(async () => {
  series = await knownSeries();
});

describe('the PromQL check', () => {
  it('passes a good query and catches a misspelled metric, a wrong label and broken syntax', () => {
    expect(checkExpr('sum by (outcome) (rate(switchyard_requests_total[5m]))', series).errors).toEqual([]);
    expect(checkExpr('rate(switchyard_request_total[5m])', series).errors).toEqual([
      'unknown metric switchyard_request_total',
    ]);
    expect(checkExpr('switchyard_push_pending{outcome="dead"}', series).errors).toEqual([
      'switchyard_push_pending has no label outcome',
    ]);
    expect(checkExpr('increase(switchyard_reaper_actions_total{action="faild"}[5m])', series).errors).toEqual(
      ['switchyard_reaper_actions_total{action} is never "faild"'],
    );
    expect(checkExpr('switchyard_push_deliveries_total{outcome="dead"}', series).errors).toEqual([]);
    expect(checkExpr('sum by (tenant) (rate(switchyard_requests_total[5m]))', series).errors[0]).toMatch(
      /grouped by tenant/,
    );
    expect(checkExpr('sum(rate(switchyard_requests_total[5m]) by (', series).errors[0]).toMatch(
      /syntax error/,
    );
  });

  it("tells the labels a query's result keeps", () => {
    const kept = (expr: string) => [...checkExpr(expr, series).labels].sort();
    expect(
      kept(
        'sum by (service) (rate(switchyard_requests_total[5m])) / sum by (service) (rate(switchyard_requests_total[5m])) > 0.02',
      ),
    ).toEqual(['service']);
    expect(
      kept(
        'histogram_quantile(0.99, sum by (le, method) (rate(switchyard_request_duration_seconds_bucket[5m])))',
      ),
    ).toEqual(['method']);
    expect(kept('max(switchyard_queue_depth) > 5')).toEqual([]);
    expect(kept('up == 0')).toEqual(['instance', 'job', 'service']);
  });

  it('knows the histograms by their bucket series, and Node default metrics', () => {
    expect(series.get('switchyard_request_duration_seconds_bucket')?.has('le')).toBe(true);
    expect(series.has('process_cpu_seconds_total')).toBe(true);
    expect(series.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });
});

describe('alerting rules (alerts.yml)', () => {
  it('has uniquely named rules in groups', () => {
    expect(rules.length).toBeGreaterThan(5);
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^Switchyard[A-Z]\w+$/);
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s: a valid query on real series', (_name, rule) => {
    expect(checkExpr(rule.expr, series).errors).toEqual([]);
  });

  it.each(rules.map((r) => [r.alert, r] as const))(
    '%s: a severity, a duration, and annotations that name labels the query keeps',
    (_name, rule) => {
      expect(['critical', 'warning', 'info']).toContain(rule.labels?.severity);
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(rule.annotations?.summary?.length).toBeGreaterThan(10);
      expect(rule.annotations?.description?.length).toBeGreaterThan(40);
      const { labels } = checkExpr(rule.expr, series);
      const named = [
        ...`${rule.annotations?.summary} ${rule.annotations?.description}`.matchAll(/\$labels\.(\w+)/g),
      ];
      for (const [, label] of named) expect(labels.has(label!), `${label} in ${rule.alert}`).toBe(true);
    },
  );

  it('the Prometheus Operator resource carries the same groups', () => {
    const resource = yamlOf<{ apiVersion: string; kind: string; spec: { groups: RuleGroup[] } }>(
      'prometheus-rule.yaml',
    );
    expect(resource.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(resource.kind).toBe('PrometheusRule');
    expect(resource.spec.groups).toEqual(alerts.groups);
  });
});

const promtool = findPromtool();
if (!promtool) console.warn(promtoolSkipReason);

describe.skipIf(!promtool)("Prometheus's own checks (promtool)", () => {
  const run = (...args: string[]) =>
    execFileSync(promtool!, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  it('accepts the rules: queries, durations and annotation templates', () => {
    expect(run('check', 'rules', `${DIR}/alerts.yml`)).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('accepts the compose configuration with its rule file', () => {
    // prometheus.yml names the rule file where compose mounts it; point it at the repository's copy.
    const dir = mkdtempSync(join(tmpdir(), 'sy-promtool-'));
    try {
      const config = readRepoFile(`${DIR}/prometheus.yml`).replace(
        '/etc/prometheus/alerts.yml',
        join(REPO_ROOT, DIR, 'alerts.yml'),
      );
      writeFileSync(join(dir, 'prometheus.yml'), config);
      expect(run('check', 'config', join(dir, 'prometheus.yml'))).toMatch(/SUCCESS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Grafana dashboard', () => {
  const panels = dashboard.panels.filter((p) => p.type !== 'row');

  it('has unique panel ids, every panel on the 24-column grid without overlaps', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const taken = new Set<string>();
    for (const { gridPos: g, id } of dashboard.panels) {
      expect(g.x + g.w, `panel ${id}`).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(taken.has(`${x},${y}`), `panel ${id} overlaps at ${x},${y}`).toBe(false);
          taken.add(`${x},${y}`);
        }
    }
  });

  it.each(panels.map((p) => [p.title, p] as const))(
    '%s: described, on the provisioned data source',
    (_t, panel) => {
      expect(panel.description?.length).toBeGreaterThan(10);
      expect(panel.datasource?.uid).toBe('switchyard-prometheus');
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(checkExpr(target.expr, series).errors).toEqual([]);
    },
  );

  it('is provisioned with the data source its panels name', () => {
    const datasources = yamlOf<{ datasources: Array<{ uid: string; type: string; url: string }> }>(
      'grafana/provisioning/datasources/prometheus.yml',
    ).datasources;
    expect(datasources).toEqual([
      expect.objectContaining({
        uid: 'switchyard-prometheus',
        type: 'prometheus',
        url: 'http://prometheus:9090',
      }),
    ]);
  });
});

describe('wiring', () => {
  it('compose runs Prometheus and Grafana only with the observability profile', () => {
    for (const name of ['prometheus', 'grafana']) expect(services[name]?.profiles).toEqual(['observability']);
    for (const [name, service] of Object.entries(services))
      if (name !== 'prometheus' && name !== 'grafana') expect(service.profiles, name).toBeUndefined();
  });

  it("compose mounts every file where Prometheus's and Grafana's configuration looks for it", () => {
    const mounts = (name: string) =>
      new Map(
        (services[name]?.volumes ?? []).map((v) => {
          const [from, to] = v.split(':');
          return [to!, from!.replace(/^\.\//, '')];
        }),
      );
    const prometheus = mounts('prometheus');
    const config = yamlOf<{ rule_files: string[] }>('prometheus.yml');
    expect(prometheus.get('/etc/prometheus/prometheus.yml')).toBe(`${DIR}/prometheus.yml`);
    for (const file of config.rule_files) {
      const source = prometheus.get(file);
      expect(source, file).toBeDefined();
      expect(repoFileExists(source!)).toBe(true);
    }
    const grafana = mounts('grafana');
    const provider = yamlOf<{ providers: Array<{ options: { path: string } }> }>(
      'grafana/provisioning/dashboards/switchyard.yml',
    ).providers[0]!;
    expect(grafana.get(provider.options.path)).toBe(`${DIR}/grafana/dashboards`);
    expect(grafana.get('/etc/grafana/provisioning')).toBe(`${DIR}/grafana/provisioning`);
    const home = String(services.grafana?.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH);
    expect(home.startsWith(`${provider.options.path}/`)).toBe(true);
    expect(repoFileExists(`${DIR}/grafana/dashboards/${home.split('/').at(-1)}`)).toBe(true);
    expect(services.grafana?.depends_on?.prometheus?.condition).toBe('service_healthy');
  });

  it('Prometheus scrapes each process on the port compose gives its metrics, under a job the alerts match', () => {
    const config = yamlOf<{
      scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    }>('prometheus.yml');
    const portOf: Record<string, string> = {
      gateway: 'GATEWAY_OPS_PORT',
      worker: 'WORKER_OPS_PORT',
      pusher: 'PUSHER_OPS_PORT',
      console: 'CONSOLE_PORT',
    };
    expect(config.scrape_configs.map((c) => c.job_name)).toEqual(
      Object.keys(portOf).map((name) => `switchyard-${name}`),
    );
    const up = rules.find((r) => r.alert === 'SwitchyardProcessDown')!;
    const jobPattern = new RegExp(`^(?:${/job=~"([^"]+)"/.exec(up.expr)![1]})$`);
    for (const job of config.scrape_configs) {
      const name = job.job_name.replace('switchyard-', '');
      expect(job.dns_sd_configs[0]?.names).toEqual([name]);
      expect(job.dns_sd_configs[0]?.port).toBe(Number(services[name]?.environment?.[portOf[name]!]));
      expect(jobPattern.test(job.job_name)).toBe(true);
    }
    // The Operator's PodMonitor names its job namespace/name.
    expect(jobPattern.test('switchyard/switchyard')).toBe(true);
  });

  it("the PodMonitor selects the Kubernetes base's pods and a metrics port each of them has", () => {
    const monitor = yamlOf<{
      spec: {
        selector: { matchLabels: Record<string, string> };
        podMetricsEndpoints: Array<{ port: string }>;
      };
    }>('pod-monitor.yaml');
    const deployments = loadYamlDocuments('deploy/kubernetes').filter((d) => d.object.kind === 'Deployment');
    expect(deployments.length).toBe(4);
    const portNames = monitor.spec.podMetricsEndpoints.map((e) => e.port);
    for (const { object } of deployments) {
      const template = (object as { spec: { template: PodTemplate } }).spec.template;
      expect(template.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
      const ports = template.spec.containers.flatMap((c) => c.ports ?? []).map((p) => p.name);
      expect(
        ports.some((p) => portNames.includes(p)),
        JSON.stringify(object.metadata),
      ).toBe(true);
    }
  });
});

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Array<{ ports?: Array<{ name: string }> }> };
}
