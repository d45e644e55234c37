import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export function readRepoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

export function repoFileExists(path: string): boolean {
  return existsSync(join(REPO_ROOT, path));
}

export interface YamlDocument {
  /** Repository-relative path. */
  file: string;
  index: number;
  object: Record<string, unknown>;
}

/**
 * Every YAML document of every .yaml/.yml file under `dir`, with merge keys (`<<: *anchor`)
 * resolved as Compose and kubectl resolve them. A syntax error anywhere fails the caller.
 */
export function loadYamlDocuments(dir: string): YamlDocument[] {
  const root = join(REPO_ROOT, dir);
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  return files.flatMap((f) => parseYaml(relative(REPO_ROOT, join(root, f))));
}

export function parseYaml(file: string): YamlDocument[] {
  return parseAllDocuments(readRepoFile(file), { merge: true })
    .map((doc, index) => {
      if (doc.errors.length > 0)
        throw new Error(`${file} document ${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return { file, index, object: doc.toJS() as Record<string, unknown> };
    })
    .filter((d) => d.object !== null);
}
