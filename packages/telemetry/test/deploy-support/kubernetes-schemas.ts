import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import type { YamlDocument } from './repo-files.ts';

interface KindSchema {
  /** kubernetes-models class: its validate() runs the Kubernetes OpenAPI schema. */
  model: new (data: never) => { validate(): void };
  /** The same schema as a TypeScript interface, for the unknown-field check. */
  typeModule: string;
  typeName: string;
}

/** Every kind the manifests may use. A new kind fails the test until it is added here. */
export const KINDS: Record<string, KindSchema> = {
  'v1/Namespace': { model: Namespace, typeModule: 'kubernetes-models/v1/Namespace', typeName: 'INamespace' },
  'v1/ConfigMap': { model: ConfigMap, typeModule: 'kubernetes-models/v1/ConfigMap', typeName: 'IConfigMap' },
  'v1/Secret': { model: Secret, typeModule: 'kubernetes-models/v1/Secret', typeName: 'ISecret' },
  'v1/Service': { model: Service, typeModule: 'kubernetes-models/v1/Service', typeName: 'IService' },
  'apps/v1/Deployment': {
    model: Deployment,
    typeModule: 'kubernetes-models/apps/v1/Deployment',
    typeName: 'IDeployment',
  },
  'batch/v1/Job': { model: Job, typeModule: 'kubernetes-models/batch/v1/Job', typeName: 'IJob' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler,
    typeModule: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    typeName: 'IHorizontalPodAutoscaler',
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    typeModule: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    typeName: 'IPodDisruptionBudget',
  },
  'networking.k8s.io/v1/Ingress': {
    model: Ingress,
    typeModule: 'kubernetes-models/networking.k8s.io/v1/Ingress',
    typeName: 'IIngress',
  },
};

export function kindKey(object: Record<string, unknown>): string {
  return `${String(object.apiVersion)}/${String(object.kind)}`;
}

/** Schema errors of one object (types, formats such as quantities, required fields); [] when valid. */
export function schemaErrors(doc: YamlDocument): string[] {
  const kind = KINDS[kindKey(doc.object)];
  if (!kind) return [`${doc.file}#${doc.index}: no schema for ${kindKey(doc.object)}`];
  try {
    new kind.model(doc.object as never).validate();
    return [];
  } catch (err) {
    return [`${doc.file}#${doc.index} (${kindKey(doc.object)}): ${(err as Error).message}`];
  }
}

/**
 * Unknown fields (`readinesProbe`, a probe under the wrong parent) pass the OpenAPI schemas, which
 * allow extra properties, and would be dropped silently by a lenient apply. Like kubeconform
 * -strict, this rejects them: each object is type-checked as an object literal against the
 * schema's TypeScript interface, where excess-property checks catch unknown keys at every depth.
 */
export function unknownFieldErrors(docs: YamlDocument[]): string[] {
  const known = docs.filter((d) => KINDS[kindKey(d.object)]);
  const here = fileURLToPath(new URL('.', import.meta.url));
  const virtual = join(here, '__manifests__.ts');
  const lines = [
    ...Object.values(KINDS).map((k, i) => `import type { ${k.typeName} as T${i} } from '${k.typeModule}';`),
    ...known.map(
      (d, i) =>
        `export const m${i}: T${Object.keys(KINDS).indexOf(kindKey(d.object))} = ${JSON.stringify(d.object)};`,
    ),
  ];
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === virtual
      ? ts.createSourceFile(name, source, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === virtual || fileExists.call(host, name);
  host.readFile = (name) => (name === virtual ? source : readFile.call(host, name));
  const program = ts.createProgram([virtual], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const doc = known[line - Object.keys(KINDS).length];
    const where = doc ? `${doc.file}#${doc.index}` : (d.file?.fileName ?? 'compiler');
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
