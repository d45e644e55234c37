// A bad setting ends a process with its problems, one line each, and exit code 1: no stack trace,
// no `Node.js v24` footer. Each entry point is started as deployments start it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@switchyard/testing';
import { ConfigError, loadConfigOrExit, type ConfigExit } from '../src/index.ts';

function run(
  entry: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, entry)],
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('an entry point with a bad setting', () => {
  it.each([
    ['apps/gateway/src/main.ts', { PORT: 'abc' }, 'PORT: '],
    ['apps/worker/src/main.ts', { LEASE_MS: '9999999999' }, 'LEASE_MS: must be at most'],
    ['apps/pusher/src/main.ts', { PUSH_POLL_MS: 'often' }, 'PUSH_POLL_MS: '],
    ['apps/console/src/main.ts', { CONSOLE_PORT: 'abc' }, 'CONSOLE_PORT: '],
    ['packages/store/src/bin/migrate.ts', { DATABASE_URL: 'CHANGE-ME' }, 'DATABASE_URL: must be a postgres'],
    [
      'apps/gateway/src/bin/seed-demo.ts',
      { SWITCHYARD_DEMO_API_KEY: 'short' },
      'SWITCHYARD_DEMO_API_KEY: must be',
    ],
    ['apps/gateway/src/main.ts', { NODE_ENV: 'Production' }, 'NODE_ENV: must be one of'],
  ])('%s %j exits 1 with the problem on one line, no stack', async (entry, env, problem) => {
    const { code, stdout, stderr } = await run(entry, env);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/: invalid configuration, not starting:$/);
    expect(lines.slice(1).some((line) => line.startsWith(`  ${problem}`))).toBe(true);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain('Node.js v');
    expect(stderr).not.toContain('ConfigError');
  });
});

describe('loadConfigOrExit', () => {
  const io = (): ConfigExit & { written: string[]; codes: number[] } => {
    const written: string[] = [];
    const codes: number[] = [];
    return {
      written,
      codes,
      write: (text) => written.push(text),
      exit: (code) => {
        codes.push(code);
        throw new Error('exited');
      },
    };
  };

  it('returns the config when it loads', () => {
    expect(loadConfigOrExit('x', () => ({ PORT: 1 }), io())).toEqual({ PORT: 1 });
  });

  it('prints every problem on its own line and exits 1', () => {
    const exit = io();
    expect(() =>
      loadConfigOrExit(
        'switchyard-gateway',
        () => {
          throw new ConfigError(['PORT: bad', 'PUBLIC_URL: worse']);
        },
        exit,
      ),
    ).toThrow('exited');
    expect(exit.written.join('')).toBe(
      'switchyard-gateway: invalid configuration, not starting:\n  PORT: bad\n  PUBLIC_URL: worse\n',
    );
    expect(exit.codes).toEqual([1]);
  });

  it('throws any other error on: that is a bug, and keeps its stack', () => {
    const exit = io();
    expect(() =>
      loadConfigOrExit(
        'x',
        () => {
          throw new TypeError('not a config problem');
        },
        exit,
      ),
    ).toThrow(TypeError);
    expect(exit.codes).toEqual([]);
  });
});
