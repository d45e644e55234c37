import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface DnsTestServer {
  /** `127.0.0.1:<port>`, for Resolver#setServers. */
  address: string;
  /** Names asked, in arrival order (once per query: A and AAAA both count). */
  queries: string[];
  close(): Promise<void>;
}

/**
 * A DNS server on 127.0.0.1 over UDP that answers A and AAAA queries for the names in `zone`
 * (lower case, no trailing dot) and reads every other query without ever answering it: a
 * black-holed zone. Just enough of RFC 1035 for c-ares: one question, answers by name pointer.
 */
export async function startDnsServer(zone: Record<string, string[]>): Promise<DnsTestServer> {
  const socket = dgram.createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (query, peer) => {
    const question = readQuestion(query);
    if (!question) return;
    queries.push(question.name);
    const known = zone[question.name];
    if (!known) return; // never answered
    const kind = question.type === 1 ? 'ipv4' : question.type === 28 ? 'ipv6' : undefined;
    const records = known.map((a) => ipaddr.parse(a)).filter((ip) => ip.kind() === kind);
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100), 2); // response, RA, RD echoed
    header.writeUInt16BE(1, 4); // QDCOUNT
    header.writeUInt16BE(records.length, 6); // ANCOUNT
    const answers = records.map((ip) => {
      const data = Buffer.from(ip.toByteArray());
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(question.type, 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6); // TTL
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    socket.send(
      Buffer.concat([header, query.subarray(12, question.end), ...answers]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(resolve)),
  };
}

/** The first question: its name, type and where it ends (after QTYPE and QCLASS). */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length && msg[at]! > 0) {
    const length = msg[at]!;
    labels.push(msg.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 5 > msg.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}
