import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, type RunningProcess } from '@switchyard/testing';

// A port another process holds: the process ends with one line naming the port and its setting,
// exit code 1, instead of an uncaught exception's stack.
const fixture = fileURLToPath(new URL('./fixtures/ops-on-port.ts', import.meta.url));
const servers: Server[] = [];
const procs: RunningProcess[] = [];
afterAll(() => {
  for (const p of procs) p.signal('SIGKILL');
  for (const s of servers) s.close();
});

async function takenPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return (server.address() as { port: number }).port;
}

describe('listenOrExit', () => {
  it('ends the process with the port and the setting named when the port is taken', async () => {
    const port = await takenPort();
    const proc = startProcess(fixture, { OPS_PORT: String(port) });
    procs.push(proc);
    expect(await proc.exited).toBe(1);
    const lines = proc.logs();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 60,
      code: 'EADDRINUSE',
      port,
      setting: 'OPS_PORT',
      msg: `cannot listen: port ${port} is already in use (another process listens on it); set OPS_PORT to another port`,
    });
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('names both settings when two of them give the same port', async () => {
    const port = await freePort();
    const proc = startProcess(fixture, { APP_PORT: String(port), OPS_PORT: String(port) });
    procs.push(proc);
    expect(await proc.exited).toBe(1);
    expect(proc.logs()).toEqual([
      expect.objectContaining({
        level: 60,
        setting: 'APP_PORT,OPS_PORT',
        msg: `cannot listen: port ${port} is set by APP_PORT and OPS_PORT (or another process listens on it); give each its own port`,
      }),
    ]);
  });

  it('lets a free port be listened on', async () => {
    const proc = startProcess(fixture, { OPS_PORT: '0' });
    procs.push(proc);
    expect(await proc.exited).toBe(0);
    expect(proc.logs().map((l) => l.msg)).toEqual(['listening']);
  });
});
