export interface Instruction {
  keyword: string;
  /** The arguments as written, continuation lines joined. */
  args: string;
}

export interface Stage {
  /** Image reference of FROM, ARG defaults substituted. */
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

/**
 * Enough of the Dockerfile grammar to check structure: comments and the parser directive dropped,
 * backslash continuations joined (comment lines inside a continuation skipped, as BuildKit does).
 */
export function parseDockerfile(text: string): Dockerfile {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    const continued = line.endsWith('\\');
    pending += `${continued ? line.slice(0, -1) : line} `;
    if (!continued) {
      logical.push(pending.trim());
      pending = '';
    }
  }
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/);
      const from = image.replace(/\$\{?(\w+)\}?/g, (_m, v: string) => globalArgs[v] ?? '');
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0 && upper === 'ARG') {
      const [name = '', value = ''] = args.split('=');
      globalArgs[name] = value;
    } else {
      stages.at(-1)?.instructions.push({ keyword: upper, args });
    }
  }
  return { globalArgs, stages };
}

/** A JSON-array (exec form) argument list, or undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}
