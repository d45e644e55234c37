// Kubernetes manifests validated without a cluster (issue 6 "validated in CI"): every object
// against the Kubernetes OpenAPI schemas (kubernetes-models) and for unknown fields, then the
// platform's own rules: one Deployment per process with probes, resources and graceful
// termination, a migrations Job, Services, Ingress, worker autoscaler, PDBs, ConfigMap + Secret.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { schemaErrors, unknownFieldErrors } from './deploy-support/kubernetes-schemas.ts';
import { loadYamlDocuments, parseYaml, REPO_ROOT } from './deploy-support/repo-files.ts';

const DIR = 'deploy/kubernetes';
const all = loadYamlDocuments(DIR);
const objects = all.filter((d) => d.object.kind !== 'Kustomization');
const ofKind = <T>(kind: string) =>
  objects.filter((d) => d.object.kind === kind).map((d) => d.object as unknown as T);

/** The processes and the port each serves /healthz, /readyz and /metrics on. */
const PROCESSES = {
  gateway: { entry: 'apps/gateway/src/main.ts', port: 8080 },
  worker: { entry: 'apps/worker/src/main.ts', port: 9091 },
  pusher: { entry: 'apps/pusher/src/main.ts', port: 9092 },
  console: { entry: 'apps/console/src/main.ts', port: 8090 },
} as const;

const deployments = ofKind<IDeployment>('Deployment');
const podSpec = (d: IDeployment): IPodSpec => d.spec?.template.spec ?? { containers: [] };
const mainContainer = (d: IDeployment): IContainer => podSpec(d).containers[0]!;
const deploymentOf = (process: string) =>
  deployments.find((d) => d.metadata?.labels?.['app.kubernetes.io/component'] === process);
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v) &&
  Object.keys(selector ?? {}).length > 0;

/** A probe's or Service's port, named or numbered, as the container port number it reaches. */
function containerPort(container: IContainer, port: number | string | undefined): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((p) => p.name === port)?.containerPort;
}

describe('schema validation', () => {
  it('every object is valid against the Kubernetes OpenAPI schemas', () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(objects.flatMap(schemaErrors)).toEqual([]);
  });

  it('no object has an unknown field (kubeconform -strict)', () => {
    expect(unknownFieldErrors(objects)).toEqual([]);
  });

  it('the unknown-field check does catch a misspelt probe', () => {
    const broken = structuredClone(objects.find((d) => d.object.kind === 'Deployment')!);
    const container = mainContainer(broken.object as unknown as IDeployment) as unknown as Record<
      string,
      unknown
    >;
    container.readinesProbe = container.readinessProbe;
    delete container.readinessProbe;
    expect(unknownFieldErrors([broken]).join('\n')).toContain('readinesProbe');
  });

  it('kustomization.yaml lists exactly the manifests in the folder', () => {
    const [kustomization] = parseYaml(`${DIR}/kustomization.yaml`);
    const resources = (kustomization?.object.resources as string[]).slice().sort();
    const files = readdirSync(join(REPO_ROOT, DIR))
      .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
      .sort();
    expect(resources).toEqual(files);
    expect(kustomization?.object.namespace).toBe('switchyard');
  });

  it('object names are unique per kind', () => {
    const keys = objects.map(
      (d) => `${String(d.object.kind)}/${String((d.object.metadata as { name: string }).name)}`,
    );
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('one Deployment per process', () => {
  it('exists for gateway, worker, pusher and console, each running its entry point under tini', () => {
    for (const [process, { entry }] of Object.entries(PROCESSES)) {
      const deployment = deploymentOf(process);
      expect(deployment, process).toBeDefined();
      const container = mainContainer(deployment!);
      // args, not command: command would replace the image's ENTRYPOINT (tini, which forwards SIGTERM).
      expect(container.command, process).toBeUndefined();
      expect(container.args, process).toEqual(['node', entry]);
      expect(container.image).toBe('switchyard');
    }
  });

  it.each(Object.entries(PROCESSES))(
    '%s: readiness /readyz and liveness /healthz on its ops port',
    (process, { port }) => {
      const container = mainContainer(deploymentOf(process)!);
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(containerPort(container, container.readinessProbe?.httpGet?.port)).toBe(port);
      expect(containerPort(container, container.livenessProbe?.httpGet?.port)).toBe(port);
      expect(containerPort(container, container.startupProbe?.httpGet?.port)).toBe(port);
    },
  );

  it.each(Object.keys(PROCESSES))('%s: requests and limits for CPU and memory', (process) => {
    const { resources } = mainContainer(deploymentOf(process)!);
    for (const bound of [resources?.requests, resources?.limits]) {
      expect(bound?.cpu, process).toBeDefined();
      expect(bound?.memory, process).toBeDefined();
    }
  });

  it.each(Object.keys(PROCESSES))(
    '%s: non-root, read-only root filesystem, no privilege escalation, no capabilities',
    (process) => {
      const deployment = deploymentOf(process)!;
      const pod = podSpec(deployment);
      const container = mainContainer(deployment);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).toBe(10001);
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      // A writable /tmp, since the root filesystem is not.
      const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    },
  );

  it('terminate gracefully: at least 30 s each, the worker (draining agent runs) the longest', () => {
    const grace = Object.fromEntries(
      Object.keys(PROCESSES).map((p) => [p, podSpec(deploymentOf(p)!).terminationGracePeriodSeconds ?? 30]),
    );
    for (const seconds of Object.values(grace)) expect(seconds).toBeGreaterThanOrEqual(30);
    for (const [process, seconds] of Object.entries(grace))
      if (process !== 'worker') expect(grace.worker).toBeGreaterThan(seconds);
    // The worker's own drain must fit inside its grace period.
    const drainMs = Number(
      mainContainer(deploymentOf('worker')!).env?.find((e) => e.name === 'SHUTDOWN_GRACE_MS')?.value,
    );
    expect(drainMs).toBeLessThan(grace.worker! * 1000);
  });

  it.each(['gateway', 'worker'])(
    "the %s's whole shutdown (preStop, grace, the deadline's margin, the trace flush) fits its grace period",
    (process) => {
      const deployment = deploymentOf(process)!;
      const container = mainContainer(deployment);
      const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
      const preStopMs = preStop[0] === 'sleep' ? Number(preStop[1]) * 1000 : 0;
      const graceMs = Number(container.env?.find((e) => e.name === 'SHUTDOWN_GRACE_MS')?.value);
      // SHUTDOWN_MARGIN_MS, the worker's agents' stop grace, and the trace flush's cap.
      const stopGraceMs = process === 'worker' ? 2_000 : 0;
      const budgetMs = preStopMs + graceMs + stopGraceMs + 5_000 + 5_000;
      expect(budgetMs).toBeLessThanOrEqual((podSpec(deployment).terminationGracePeriodSeconds ?? 30) * 1000);
    },
  );

  it('take configuration from the ConfigMap and the Secret, and name themselves for tracing', () => {
    const configMaps = new Set(ofKind<IConfigMap>('ConfigMap').map((c) => c.metadata?.name));
    const secrets = new Set(ofKind<ISecret>('Secret').map((s) => s.metadata?.name));
    const serviceNames = new Set<string>();
    for (const process of Object.keys(PROCESSES)) {
      const container = mainContainer(deploymentOf(process)!);
      expect(container.envFrom?.some((e) => e.configMapRef && configMaps.has(e.configMapRef.name))).toBe(
        true,
      );
      expect(container.envFrom?.some((e) => e.secretRef && secrets.has(e.secretRef.name))).toBe(true);
      const name = container.env?.find((e) => e.name === 'OTEL_SERVICE_NAME')?.value;
      expect(name).toBe(`switchyard-${process}`);
      serviceNames.add(name!);
    }
    expect(serviceNames.size).toBe(4);
  });

  it('selectors match their own pod template and no other Deployment', () => {
    for (const d of deployments) {
      expect(matches(d.spec?.selector.matchLabels, d.spec?.template.metadata?.labels)).toBe(true);
      const others = deployments.filter(
        (o) => o !== d && matches(d.spec?.selector.matchLabels, o.spec?.template.metadata?.labels),
      );
      expect(others).toEqual([]);
    }
  });
});

describe('the other objects', () => {
  it('a Namespace enforcing the restricted Pod Security Standard', () => {
    const [namespace] = ofKind<{ metadata: { name: string; labels: Record<string, string> } }>('Namespace');
    expect(namespace?.metadata.name).toBe('switchyard');
    expect(namespace?.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('a ConfigMap with no secrets in it and a Secret template with placeholders only', () => {
    const [config] = ofKind<IConfigMap>('ConfigMap');
    expect(
      Object.keys(config?.data ?? {}).filter((k) => /SECRET|TOKEN|PASSWORD|DATABASE_URL|REDIS_URL/.test(k)),
    ).toEqual([]);
    const [secret] = ofKind<ISecret>('Secret');
    expect(Object.keys(secret?.stringData ?? {}).sort()).toEqual([
      'DATABASE_URL',
      'REDIS_URL',
      'SWITCHYARD_ADMIN_TOKEN',
      'SWITCHYARD_SECRET_KEY',
    ]);
    // Invalid on purpose: a pod started with the template fails its config check at once.
    expect(new Set(Object.values(secret?.stringData ?? {}))).toEqual(new Set(['CHANGE-ME']));
  });

  it('a migrations Job with the same image, secrets and hardening as the apps', () => {
    const [job] = ofKind<IJob>('Job');
    const pod = job?.spec?.template.spec;
    const container = pod?.containers[0];
    expect(container?.args).toEqual(['node', 'packages/store/src/bin/migrate.ts']);
    expect(container?.image).toBe('switchyard');
    expect(['Never', 'OnFailure']).toContain(pod?.restartPolicy);
    expect(container?.envFrom?.some((e) => e.secretRef?.name === 'switchyard-secrets')).toBe(true);
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    expect(container?.resources?.limits?.memory).toBeDefined();
    expect(job?.spec?.backoffLimit).toBeGreaterThan(0);
  });

  it('Services reach a Deployment on a declared container port: gateway, console and the metrics ports', () => {
    const services = ofKind<IService>('Service');
    const reached = services.map((s) => {
      const targets = deployments.filter((d) => matches(s.spec?.selector, d.spec?.template.metadata?.labels));
      expect(targets, s.metadata?.name).toHaveLength(1);
      for (const port of s.spec?.ports ?? [])
        expect(containerPort(mainContainer(targets[0]!), port.targetPort), s.metadata?.name).toBeDefined();
      return `${targets[0]!.metadata?.labels?.['app.kubernetes.io/component']}:${(s.spec?.ports ?? []).map((p) => containerPort(mainContainer(targets[0]!), p.targetPort)).join(',')}`;
    });
    expect(reached.sort()).toEqual(['console:8090', 'gateway:8080', 'pusher:9092', 'worker:9091']);
    // No sticky sessions: every gateway serves every request and stream.
    for (const s of services) expect(s.spec?.sessionAffinity ?? 'None').toBe('None');
  });

  it('Ingresses route to existing Services and ports, with SSE-friendly proxying for the gateway', () => {
    const services = ofKind<IService>('Service');
    const ingresses = ofKind<IIngress>('Ingress');
    const backends = ingresses.flatMap((i) =>
      (i.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []).map((p) => p.backend.service),
    );
    for (const backend of backends) {
      const service = services.find((s) => s.metadata?.name === backend?.name);
      expect(service, backend?.name).toBeDefined();
      expect(
        service?.spec?.ports?.some((p) => p.name === backend?.port?.name || p.port === backend?.port?.number),
      ).toBe(true);
    }
    expect(new Set(backends.map((b) => b?.name))).toEqual(
      new Set(['switchyard-gateway', 'switchyard-console']),
    );
    const gateway = ingresses.find((i) => i.metadata?.name === 'switchyard-gateway');
    const annotations = gateway?.metadata?.annotations ?? {};
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
    expect(Object.keys(annotations).filter((k) => k.includes('affinity'))).toEqual([]);
    // Probes and metrics stay inside the cluster: no catch-all route to the gateway.
    const gatewayPaths = (gateway?.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []).map((p) => p.path);
    expect(gatewayPaths).not.toContain('/');
    expect(gatewayPaths.sort()).toEqual(['/.well-known', '/admin', '/agents']);
  });

  it('a CPU-based autoscaler (autoscaling/v2) owns the worker replica count', () => {
    const hpas = ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpas).toHaveLength(1);
    const [hpa] = hpas;
    expect(hpa?.spec?.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deploymentOf('worker')?.metadata?.name,
    });
    expect(hpa?.spec?.metrics?.[0]?.resource?.name).toBe('cpu');
    expect(hpa?.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa?.spec?.maxReplicas).toBeGreaterThan(hpa?.spec?.minReplicas ?? 0);
    // A fixed replicas field would reset the autoscaler at every apply.
    expect(deploymentOf('worker')?.spec?.replicas).toBeUndefined();
    expect(mainContainer(deploymentOf('worker')!).resources?.requests?.cpu).toBeDefined();
  });

  it('PodDisruptionBudgets cover the gateway, the workers and the pushers', () => {
    const covered = ofKind<IPodDisruptionBudget>('PodDisruptionBudget').map((pdb) => {
      const targets = deployments.filter((d) =>
        matches(pdb.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels),
      );
      expect(targets).toHaveLength(1);
      expect(pdb.spec?.maxUnavailable ?? pdb.spec?.minAvailable).toBeDefined();
      return targets[0]!.metadata?.labels?.['app.kubernetes.io/component'];
    });
    expect(covered.sort()).toEqual(['gateway', 'pusher', 'worker']);
  });
});
