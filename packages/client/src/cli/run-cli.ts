import { parseArgs } from 'node:util';
import { usageLine, type Command } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { ExitCode, exitCodeForError } from './exit-codes.ts';
import { helpText } from './help.ts';
import { Output, type CliIo } from './io.ts';
import { OPTIONS, type OptionName, type OptionValues } from './options.ts';
import { reportError } from './report-error.ts';
import { UsageError } from './usage-error.ts';

const ALWAYS: readonly OptionName[] = ['help', 'json'];

/** Parses argv, runs the command and returns the exit code; never throws. */
export async function runCli(
  argv: string[],
  io: CliIo,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  let out = new Output(io, argv.includes('--json'));
  try {
    const parsed = parse(argv);
    const values = parsed.values as OptionValues;
    out = new Output(io, values.json === true);
    if (parsed.positionals.length === 0) {
      // Help asked for is the output (stdout, as a command's --help); help instead of a command
      // is a usage error's explanation (stderr).
      const print = values.help ? (line: string) => out.out(line) : (line: string) => out.err(line);
      for (const line of helpText(COMMANDS)) print(line);
      return values.help ? ExitCode.OK : ExitCode.USAGE;
    }
    const command = findCommand(parsed.positionals);
    if (values.help) {
      out.out(`usage: ${usageLine(command)}`);
      out.out(`  ${command.summary}`);
      return ExitCode.OK;
    }
    checkOptions(command, parsed.values);
    const args = parsed.positionals.slice(command.words.length);
    const max = command.args.length + (command.optionalArgs?.length ?? 0);
    if (args.length < command.args.length || args.length > max) {
      throw new UsageError(
        `${command.words.join(' ')} takes ${command.args.map((a) => `<${a}>`).join(' ') || 'no arguments'}`,
        usageLine(command),
      );
    }
    return await command.run({ out, values, env: io.env, signal }, args);
  } catch (err) {
    reportError(out, err);
    return exitCodeForError(err);
  }
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: OPTIONS,
      allowPositionals: true,
      allowNegative: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function findCommand(positionals: string[]): Command {
  const matches = COMMANDS.filter((c) => c.words.every((w, i) => positionals[i] === w));
  const command = matches.sort((a, b) => b.words.length - a.words.length)[0];
  if (command) return command;
  const prefix = positionals.slice(0, 2).join(' ');
  const near = COMMANDS.filter((c) => c.words[0] === positionals[0]).map((c) => `  ${usageLine(c)}`);
  throw new UsageError(
    near.length > 0
      ? `unknown command "${prefix}"; did you mean:\n${near.join('\n')}`
      : `unknown command "${positionals[0]}" (try --help)`,
  );
}

function checkOptions(command: Command, values: Record<string, unknown>): void {
  for (const name of Object.keys(values) as OptionName[]) {
    if (values[name] === undefined || ALWAYS.includes(name) || command.options.includes(name)) continue;
    throw new UsageError(`${command.words.join(' ')} does not take --${name}`, usageLine(command));
  }
}
