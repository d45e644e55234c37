import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface WireCounts {
  /** SQL statements executed (simple Queries and extended-protocol Executes), BEGIN/COMMIT not counted. */
  statements: number;
  /** Client→server waits: a simple Query or a Sync each end one (node-postgres does not pipeline). */
  roundTrips: number;
  /** Explicit BEGIN…COMMIT blocks plus statements run outside one (each its own implicit transaction). */
  transactions: number;
  /** Those of the transactions that wrote (an INSERT, UPDATE … SET or DELETE among their statements). */
  writeTransactions: number;
}

const WRITE = /\b(insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i;

/**
 * A TCP proxy in front of Postgres that reads the frontend protocol (it changes no byte) and counts
 * statements, round trips and transactions. Postgres here has no pg_stat_statements (it is not in
 * shared_preload_libraries and the benchmark does not restart a shared server), so the wire is
 * where statements are counted.
 */
export async function startWireCounter(
  target: URL,
): Promise<{ url: (databaseUrl: string) => string; counts: WireCounts; reset(): void; close(): void }> {
  const counts: WireCounts = { statements: 0, roundTrips: 0, transactions: 0, writeTransactions: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    const parse = frontendParser(counts);
    client.on('data', (chunk: Buffer) => {
      parse(chunk);
      upstream.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url(databaseUrl) {
      const u = new URL(databaseUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    counts,
    reset() {
      counts.statements = counts.roundTrips = counts.transactions = counts.writeTransactions = 0;
    },
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** Frontend messages: an untyped startup packet (after any SSL/GSS probe), then type byte + int32 length. */
function frontendParser(counts: WireCounts): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  let started = false;
  let inBlock = false;
  let executedSinceSync = false;
  // The text the next Execute runs (from the Bind's statement) and whether the open
  // transaction has written.
  let parsed = '';
  /** Statement name → text, per connection (the unnamed one is '', replaced by each Parse). */
  const prepared = new Map<string, string>();
  let wrote = false;
  const endTransaction = () => {
    if (wrote) counts.writeTransactions += 1;
    wrote = false;
  };
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (!started) {
        if (buf.length < 8) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        const code = buf.readInt32BE(4);
        if (code !== SSL_REQUEST && code !== GSS_REQUEST) started = true;
        buf = buf.subarray(len);
        continue;
      }
      if (buf.length < 5) return;
      const type = String.fromCharCode(buf[0]!);
      const len = buf.readInt32BE(1);
      if (buf.length < 1 + len) return;
      if (type === 'Q') {
        const sql = buf.toString('utf8', 5, len).trim();
        counts.roundTrips += 1;
        if (/^(BEGIN|START TRANSACTION)/i.test(sql)) {
          inBlock = true;
          counts.transactions += 1;
        } else if (/^(COMMIT|ROLLBACK|END)/i.test(sql)) {
          inBlock = false;
          endTransaction();
        } else {
          counts.statements += 1;
          wrote ||= WRITE.test(sql);
          if (!inBlock) {
            counts.transactions += 1;
            endTransaction();
          }
        }
      } else if (type === 'P') {
        // Parse: statement name, text. A named statement is parsed once and then only bound.
        const [name = '', text = ''] = buf.toString('utf8', 5, 1 + len).split('\0');
        prepared.set(name, text);
      } else if (type === 'B') {
        // Bind: portal name, statement name: the text this Execute will run.
        const statement = buf.toString('utf8', 5, 1 + len).split('\0')[1] ?? '';
        parsed = prepared.get(statement) ?? '';
      } else if (type === 'E') {
        counts.statements += 1;
        executedSinceSync = true;
        wrote ||= WRITE.test(parsed);
      } else if (type === 'S') {
        counts.roundTrips += 1;
        if (executedSinceSync && !inBlock) {
          counts.transactions += 1;
          endTransaction();
        }
        executedSinceSync = false;
      }
      buf = buf.subarray(1 + len);
    }
  };
}
