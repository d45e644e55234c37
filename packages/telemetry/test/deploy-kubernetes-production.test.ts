// What the Kubernetes base exposes and allows in production, beyond schema validity
// (deploy-kubernetes.test.ts): webhooks over https only, the console's links set, ops endpoints
// kept inside the cluster, and every replicated process covered by a disruption budget.
import { describe, expect, it } from 'vitest';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { loadYamlDocuments, parseYaml } from './deploy-support/repo-files.ts';

const objects = loadYamlDocuments('deploy/kubernetes').map((d) => d.object);
const ofKind = <T>(kind: string) => objects.filter((o) => o.kind === kind) as unknown as T[];
const [config] = ofKind<IConfigMap>('ConfigMap');
const settings = config?.data ?? {};
const ingresses = ofKind<IIngress>('Ingress');
const ingress = (name: string) => ingresses.find((i) => i.metadata?.name === name);
const component = (o: { metadata?: { labels?: Record<string, string> } }) =>
  o.metadata?.labels?.['app.kubernetes.io/component'];

/** The Service an Ingress sends `host` + `path` to, by the Ingress path rules (Exact, or Prefix by segment). */
function routedTo(host: string, path: string): string | undefined {
  const rules = ingresses.flatMap((i) => i.spec?.rules ?? []).filter((r) => r.host === host);
  const matches = rules
    .flatMap((r) => r.http?.paths ?? [])
    .filter((p) =>
      p.pathType === 'Exact'
        ? path === p.path
        : p.path === '/' || path === p.path || path.startsWith(`${p.path!.replace(/\/$/, '')}/`),
    )
    .sort((a, b) => (b.path ?? '').length - (a.path ?? '').length);
  return matches[0]?.backend.service?.name;
}

const hostOf = (name: string) => ingress(name)?.spec?.rules?.[0]?.host ?? '';

describe('the production ConfigMap', () => {
  it('sends webhooks (and calls upstream agents) over https only', () => {
    expect(settings.WEBHOOK_ALLOW_HTTP).toBe('false');
  });

  it('leaves docker-compose, a developer box, allowing http', () => {
    const [compose] = parseYaml('docker-compose.yml');
    const env = (compose?.object['x-switchyard-env'] ?? {}) as Record<string, string>;
    expect(env.WEBHOOK_ALLOW_HTTP).toMatch(/:-true}$/);
  });

  it("gives the console its gateway and trace links, at the Ingresses' hosts, not localhost", () => {
    expect(settings.GATEWAY_PUBLIC_URL).toBe(settings.PUBLIC_URL);
    expect(new URL(settings.GATEWAY_PUBLIC_URL!).host).toBe(hostOf('switchyard-gateway'));
    const traces = new URL(settings.TRACE_UI_URL!);
    expect(traces.protocol).toBe('https:');
    expect(traces.hostname.endsWith(`.${hostOf('switchyard-gateway')}`)).toBe(true);
  });
});

describe('the Ingresses', () => {
  it.each([
    ['switchyard-gateway', '/agents/demo/echo/rpc'],
    ['switchyard-console', '/'],
    ['switchyard-console', '/login'],
    ['switchyard-console', '/tasks/demo/0b7c/stream'],
    ['switchyard-console', '/contexts/demo/c1'],
    ['switchyard-console', '/queues'],
    ['switchyard-console', '/find'],
    ['switchyard-console', '/tenants/demo/agents'],
    ['switchyard-console', '/dead-letters/replay'],
    ['switchyard-console', '/api/tasks'],
    ['switchyard-console', '/assets/console.css'],
  ])('%s serves %s', (name, path) => {
    expect(routedTo(hostOf(name), path)).toBe(name);
  });

  it.each(['switchyard-gateway', 'switchyard-console'])(
    '%s keeps /healthz, /readyz and /metrics inside the cluster',
    (name) => {
      for (const path of ['/healthz', '/readyz', '/metrics', '/metrics/'])
        expect(routedTo(hostOf(name), path), path).toBeUndefined();
    },
  );
});

describe('PodDisruptionBudgets', () => {
  it('cover every Deployment that runs more than one pod (a drain takes one at a time)', () => {
    const autoscaled = new Set(
      ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler').map((h) => h.spec?.scaleTargetRef.name),
    );
    const replicated = ofKind<IDeployment>('Deployment')
      .filter((d) => autoscaled.has(d.metadata?.name ?? '') || (d.spec?.replicas ?? 1) > 1)
      .map(component)
      .sort();
    const budgets = ofKind<IPodDisruptionBudget>('PodDisruptionBudget');
    expect(replicated).toEqual(['gateway', 'pusher', 'worker']);
    for (const process of replicated) {
      const budget = budgets.find(
        (b) => b.spec?.selector?.matchLabels?.['app.kubernetes.io/component'] === process,
      );
      expect(budget?.spec?.maxUnavailable, process).toBe(1);
    }
  });
});
