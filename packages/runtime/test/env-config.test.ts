import { describe, expect, it } from 'vitest';
import {
  boolVar,
  cidrListVar,
  commonEnvSchema,
  ConfigError,
  intVar,
  listVar,
  parseEnv,
  urlVar,
  z,
} from '../src/index.ts';

/** The message parseEnv throws for `env`, or '' when it parses. */
function configError(schema: z.ZodObject, env: NodeJS.ProcessEnv): string {
  try {
    parseEnv(schema, env);
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
}

describe('a blank variable is an unset one', () => {
  const schema = commonEnvSchema.extend({
    RUN_TIMEOUT_MS: intVar(900_000, 0),
    SHUTDOWN_GRACE_MS: intVar(20_000, 0),
    WEBHOOK_ALLOW_HTTP: boolVar(true),
    WEBHOOK_ALLOW_CIDRS: cidrListVar(),
    ORIGINS: listVar((o) => o.startsWith('https://'), 'must be https origins'),
    TRACE_UI_URL: urlVar('http://localhost:16686', ['http:', 'https:']),
    WORKER_ID: z.string().min(1).optional(),
  });

  it.each(['', ' ', '\t', '  \n'])('%j: every helper falls back to its default', (blank) => {
    const env = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, blank]));
    // Number('') and Number(' ') are 0, which for these settings means "no limit".
    expect(parseEnv(schema, env)).toEqual(parseEnv(schema, {}));
    expect(parseEnv(schema, env)).toMatchObject({
      PG_STATEMENT_TIMEOUT_MS: 60_000,
      RUN_TIMEOUT_MS: 900_000,
      SHUTDOWN_GRACE_MS: 20_000,
      WEBHOOK_ALLOW_HTTP: true,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/switchyard',
      TRACE_UI_URL: 'http://localhost:16686',
    });
  });

  it('a value that is not blank is still checked, 0 included', () => {
    expect(parseEnv(schema, { RUN_TIMEOUT_MS: '0', SHUTDOWN_GRACE_MS: ' 5 ' })).toMatchObject({
      RUN_TIMEOUT_MS: 0,
      SHUTDOWN_GRACE_MS: 5,
    });
    expect(configError(schema, { RUN_TIMEOUT_MS: 'soon' })).toContain('RUN_TIMEOUT_MS');
    expect(configError(schema, { WEBHOOK_ALLOW_HTTP: 'maybe' })).toContain('WEBHOOK_ALLOW_HTTP');
  });

  it('a blank secret is unset too, so production refuses the development default it falls back to', () => {
    expect(configError(commonEnvSchema, { NODE_ENV: 'production', SWITCHYARD_SECRET_KEY: ' ' })).toContain(
      'SWITCHYARD_SECRET_KEY: a development value',
    );
  });
});

describe('SWITCHYARD_SECRET_KEY_PREVIOUS', () => {
  it('is a comma-separated list of keys, none by default, each at least 16 characters', () => {
    expect(parseEnv(commonEnvSchema, {}).SWITCHYARD_SECRET_KEY_PREVIOUS).toEqual([]);
    expect(
      parseEnv(commonEnvSchema, {
        SWITCHYARD_SECRET_KEY_PREVIOUS: ' first-old-key-0123456 , second-old-key-0123456,',
      }).SWITCHYARD_SECRET_KEY_PREVIOUS,
    ).toEqual(['first-old-key-0123456', 'second-old-key-0123456']);
    const refused = configError(commonEnvSchema, {
      SWITCHYARD_SECRET_KEY_PREVIOUS: 'first-old-key-0123456,short',
    });
    expect(refused).toContain('SWITCHYARD_SECRET_KEY_PREVIOUS');
    expect(refused).not.toContain('first-old-key');
  });
});

describe('a config error names the setting but never shows a password', () => {
  it.each([
    ['DATABASE_URL', 'postgress://u:hunter2@db/x'],
    ['DATABASE_URL', 'postgres://u:hun/ter2@db:5432/x'],
    ['DATABASE_URL', 'u:hunter2@db:5432/x'],
    ['REDIS_URL', 'http://:hunter2@cache:6379'],
    ['REDIS_URL', 'redis//default:hun@ter2@cache:6379'],
  ])('%s=%s', (name, value) => {
    const message = configError(commonEnvSchema, { [name]: value });
    expect(message).toContain(`${name}: must be a`);
    // Not even the part of a password before a bare `/` or `@`.
    expect(message).not.toMatch(/hun|ter2/);
  });

  it('any other URL setting too, keeping the scheme and host that say what is wrong', () => {
    const schema = z.object({ JWKS_URL: urlVar('https://id.example/jwks', ['https:']) });
    const message = configError(schema, { JWKS_URL: 'http://client:s3cret@id.example/jwks' });
    expect(message).toContain('JWKS_URL: must be a https: URL (got "http://[redacted]@id.example/jwks")');
  });

  it('a value without credentials is shown as it is', () => {
    expect(configError(commonEnvSchema, { DATABASE_URL: 'CHANGE-ME' })).toContain(
      'DATABASE_URL: must be a postgres: or postgresql: URL (got "CHANGE-ME")',
    );
  });
});

describe('METRICS_TENANT_LABEL', () => {
  it('reaches the metrics: with false, tasks created carry no tenant label', async () => {
    const { openProcessResources } = await import('../src/index.ts');
    const env = {
      DATABASE_URL: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'silent',
    };
    for (const [setting, labelled] of [
      ['true', true],
      ['false', false],
    ] as const) {
      const config = parseEnv(commonEnvSchema, { ...env, METRICS_TENANT_LABEL: setting });
      const resources = await openProcessResources('test', config, {});
      try {
        resources.metrics.tasks.created({ agent: 'echo', tenant: 'acme' });
        const text = (await resources.metrics.text()).body;
        const line = text.split('\n').find((l) => l.startsWith('switchyard_tasks_created_total{'));
        expect(line?.includes('tenant="acme"'), setting).toBe(labelled);
      } finally {
        await resources.close();
      }
    }
  });
});
