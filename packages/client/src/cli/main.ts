#!/usr/bin/env node
// The `switchyard` CLI entry point (Node 24 runs this TypeScript directly). README.md documents it.
import { runCli } from './run-cli.ts';

// A reader that stopped reading (`switchyard list … | head -3`) is no failure: end quietly, as
// Unix tools do, instead of an unhandled EPIPE and its stack trace.
const endOnClosedPipe = (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
};
// stderr too: `… 2>&1 | head` closes the pipe both write to.
process.stdout.on('error', endOnClosedPipe);
process.stderr.on('error', endOnClosedPipe);

const interrupt = new AbortController();
process.once('SIGINT', () => {
  const reason = new Error('interrupted');
  reason.name = 'Interrupted';
  interrupt.abort(reason);
  // A second Ctrl-C does not wait for anything.
  process.once('SIGINT', () => process.exit(130));
});

const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, env: process.env },
  interrupt.signal,
);
process.exitCode = code;
// Idle keep-alive sockets must not hold the process open once the work is done.
setTimeout(() => process.exit(code), 2000).unref();
