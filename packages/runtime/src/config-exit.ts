import { ConfigError } from './env-config.ts';

/** Where the problems go and how the process ends; a test's stand-ins replace both. */
export interface ConfigExit {
  write(text: string): void;
  exit(code: number): never;
}

const processExit: ConfigExit = {
  write: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/**
 * Loads a process's config (an entry point's first statement). A ConfigError ends the process
 * with exit code 1 and its problems on stderr, one line each, naming the setting. Left to escape
 * the entry point's top level, it printed the throw site, a stack of the loader's frames and
 * Node's version around the problems: noise around a fix that is one variable. Any other error is
 * a bug, and is thrown on with its stack.
 */
export function loadConfigOrExit<T>(command: string, load: () => T, io: ConfigExit = processExit): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.write(
      `${command}: invalid configuration, not starting:\n${err.problems.map((p) => `  ${p}\n`).join('')}`,
    );
    return io.exit(1);
  }
}
