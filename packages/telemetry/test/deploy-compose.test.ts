// docker-compose.yml validated without a Docker engine (issue 6): against the Compose
// Specification schema, then for what the platform needs to come up with one command.
import { describe, expect, it } from 'vitest';
import { composeErrors } from './deploy-support/compose-schema.ts';
import { parseYaml, repoFileExists } from './deploy-support/repo-files.ts';

interface Healthcheck {
  test: string[];
}
interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  container_name?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: Healthcheck;
  stop_grace_period?: string;
  restart?: string;
}

const [document] = parseYaml('docker-compose.yml');
const compose = document!.object as { services: Record<string, ComposeService> };
const services = compose.services;

const APPS = {
  gateway: { entry: 'apps/gateway/src/main.ts', port: 8080 },
  worker: { entry: 'apps/worker/src/main.ts', port: 9091 },
  pusher: { entry: 'apps/pusher/src/main.ts', port: 9092 },
  console: { entry: 'apps/console/src/main.ts', port: 8090 },
} as const;

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    expect(composeErrors(compose)).toEqual([]);
  });

  it('the schema check does catch a mistake', () => {
    const broken = structuredClone(compose);
    (broken.services.gateway as Record<string, unknown>).healthcheck = {
      test: ['CMD', 'true'],
      interval: 'ten seconds',
    };
    expect(composeErrors(broken).join('\n')).toContain('healthcheck/interval');
  });

  it('brings up the whole platform: stores, migrations, every process, tracing and (by profile) metrics', () => {
    expect(Object.keys(services).sort()).toEqual([
      'console',
      'gateway',
      'grafana',
      'jaeger',
      'migrate',
      'postgres',
      'prometheus',
      'pusher',
      'redis',
      'worker',
    ]);
    expect(services.postgres?.image).toMatch(/^postgres:16/);
    expect(services.redis?.image).toMatch(/^redis:7/);
    expect(services.jaeger?.image).toMatch(/^jaegertracing\/all-in-one:/);
    expect(String(services.jaeger?.environment?.COLLECTOR_OTLP_ENABLED)).toBe('true');
  });

  it('every long-running service has a healthcheck (migrate is one-shot)', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'migrate') continue;
      expect(service.healthcheck?.test, name).toBeDefined();
    }
  });

  it('migrate applies migrations then seeds the demo tenant, once, after Postgres is healthy', () => {
    const migrate = services.migrate!;
    expect(migrate.command?.join(' ')).toContain(
      'node packages/store/src/bin/migrate.ts && node apps/gateway/src/bin/seed-demo.ts',
    );
    expect(migrate.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(migrate.restart).toBe('no');
    expect(migrate.environment?.SWITCHYARD_DEMO_API_KEY).toBeDefined();
  });

  it.each(Object.entries(APPS))(
    '%s: same image, its entry point, probes on its port, ordered start, graceful stop',
    (name, { entry, port }) => {
      const service = services[name]!;
      expect(service.image).toBe(services.migrate?.image);
      expect(service.build).toEqual({ context: '.', dockerfile: 'deploy/Dockerfile' });
      expect(service.command).toEqual(['node', entry]);
      expect(service.healthcheck?.test.join(' ')).toContain(`fetch('http://127.0.0.1:${port}/healthz')`);
      expect(service.depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
      // Longer than the drain's deadline and its trace flush: the worker's is 20 + 7 s, then 5 s.
      expect(service.stop_grace_period).toBe(name === 'worker' ? '40s' : '30s');
      expect(service.container_name).toBeUndefined();
    },
  );

  it('every app exports traces to Jaeger under its own service name and shares one configuration', () => {
    const names = Object.keys(APPS).map((name) => {
      const env = services[name]!.environment!;
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
      for (const key of [
        'DATABASE_URL',
        'REDIS_URL',
        'SWITCHYARD_SECRET_KEY',
        'SWITCHYARD_ADMIN_TOKEN',
        'SWITCHYARD_DEMO_API_KEY',
      ])
        expect(env[key], `${name} ${key}`).toBeDefined();
      return env.OTEL_SERVICE_NAME;
    });
    expect(names).toEqual([
      'switchyard-gateway',
      'switchyard-worker',
      'switchyard-pusher',
      'switchyard-console',
    ]);
  });

  it('development secrets are defaults the environment overrides, long enough for the config checks', () => {
    const env = services.gateway!.environment!;
    for (const key of ['SWITCHYARD_SECRET_KEY', 'SWITCHYARD_ADMIN_TOKEN', 'SWITCHYARD_DEMO_API_KEY']) {
      // `:-` (empty means default) or `-` (empty stays empty: the demo key, a fresh one is issued).
      const match = /^\$\{(\w+):?-(.+)\}$/.exec(String(env[key]));
      expect(match?.[1], key).toBe(key);
      expect(match?.[2]?.length, key).toBeGreaterThanOrEqual(16);
    }
  });

  it('the worker scales with --scale: no fixed name, no host ports', () => {
    expect(services.worker?.container_name).toBeUndefined();
    expect(services.worker?.ports).toBeUndefined();
    expect(services.gateway?.ports).toEqual(['${BIND_ADDRESS:-127.0.0.1}:${GATEWAY_PORT:-8080}:8080']);
    expect(services.console?.ports).toEqual(['${BIND_ADDRESS:-127.0.0.1}:${CONSOLE_PORT:-8090}:8090']);
    expect(services.jaeger?.ports).toEqual([
      '${OBSERVABILITY_BIND_ADDRESS:-127.0.0.1}:${JAEGER_UI_PORT:-16686}:16686',
    ]);
  });

  it('BIND_ADDRESS publishes no tool without a login: Jaeger, Prometheus and Grafana stay on loopback', () => {
    for (const name of ['jaeger', 'prometheus', 'grafana']) {
      const ports = services[name]?.ports ?? [];
      expect(ports.length, name).toBeGreaterThan(0);
      for (const port of ports)
        expect(port, name).toMatch(/^\$\{OBSERVABILITY_BIND_ADDRESS:-127\.0\.0\.1\}:/);
    }
  });

  it('builds from a Dockerfile that exists', () => {
    expect(repoFileExists(services.gateway!.build!.dockerfile)).toBe(true);
  });
});
