import type { Output } from './io.ts';
import type { OptionName, OptionValues } from './options.ts';

export interface CommandContext {
  out: Output;
  values: OptionValues;
  env: Record<string, string | undefined>;
  /** Aborted on SIGINT. */
  signal: AbortSignal;
}

/** One CLI command: its words, usage, the options it takes, and what it does (returns the exit code). */
export interface Command {
  /** e.g. `['push', 'add']`. */
  words: readonly string[];
  /** Positional arguments after the words, e.g. `['agent-url', 'task-id']`. */
  args: readonly string[];
  /** Optional positionals accepted after `args`. */
  optionalArgs?: readonly string[];
  options: readonly OptionName[];
  /** Option part of the usage line, e.g. `[--json]`. */
  usage: string;
  summary: string;
  run(ctx: CommandContext, args: string[]): Promise<number>;
}

export function usageLine(command: Command): string {
  const args = [...command.args.map((a) => `<${a}>`), ...(command.optionalArgs ?? []).map((a) => `[${a}]`)];
  return ['switchyard', ...command.words, ...args, command.usage].filter(Boolean).join(' ');
}
