import net, { type AddressInfo } from 'node:net';

/**
 * A stand-in for PgBouncer (or a managed Postgres role without CONNECT on `postgres`): a TCP proxy
 * to Postgres that serves only the databases it is given and refuses a connection to any other
 * with PgBouncer's answer, `no such database`.
 */
export interface OneDatabasePooler {
  port: number;
  /** Every database a client asked for, in order, served or refused. */
  asked: string[];
  close(): Promise<void>;
}

export async function startOneDatabasePooler(
  postgres: { host: string; port: number },
  serves: readonly string[],
): Promise<OneDatabasePooler> {
  const asked: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < received.readInt32BE(0)) return;
      client.off('data', onData);
      const database = startupParameters(received).get('database') ?? '';
      asked.push(database);
      if (!serves.includes(database)) {
        client.end(errorResponse('08P01', `no such database: ${database}`));
        return;
      }
      const upstream = net.connect(postgres.port, postgres.host);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      upstream.write(received);
      client.pipe(upstream).pipe(client);
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    asked,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The key/value pairs of a StartupMessage: length, protocol version, then `key\0value\0`… `\0`. */
function startupParameters(message: Buffer): Map<string, string> {
  const fields = message.subarray(8, message.readInt32BE(0)).toString('utf8').split('\0');
  const parameters = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]) parameters.set(fields[i]!, fields[i + 1]!);
  return parameters;
}

/** A FATAL ErrorResponse message, as a server sends it before closing the connection. */
function errorResponse(code: string, message: string): Buffer {
  const body = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
