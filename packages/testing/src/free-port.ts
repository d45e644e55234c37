import net, { type AddressInfo } from 'node:net';

/**
 * A loopback port nobody listens on right now, for a child process to bind a moment later. A port
 * picked at random instead can be one the kernel has handed out as another connection's local
 * port, and the child then fails to listen.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
