import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { createHostResolver } from './resolve-host.ts';

/**
 * SSRF rules for webhook URLs (digest §8, ARCHITECTURE.md §7): only public unicast addresses,
 * checked at registration and again after DNS resolution at send time (rebinding). Loopback,
 * private, link-local (incl. 169.254.169.254 metadata), unique-local, CGNAT, multicast and
 * reserved ranges are refused unless the operator allow-list (CIDRs) permits them.
 */
export interface UrlPolicy {
  /** CIDRs allowed even though they are not public, e.g. ['127.0.0.1/32'] in tests. Default none. */
  allowCidrs: readonly string[];
  /** Allow plain http:// (https is the default requirement off loopback). Default true. */
  allowHttp: boolean;
}

/** Resolves a host name to its addresses; ends early, rejecting, when `signal` aborts. */
export type LookupFn = (hostname: string, signal?: AbortSignal) => Promise<Array<{ address: string }>>;

/**
 * Budget of the lookup at registration, in ms. It runs inside a tenant's API request: a name whose
 * DNS never answers is refused after this long instead of holding the request (see resolve-host.ts
 * for why it is not dns.lookup).
 */
export const REGISTRATION_LOOKUP_TIMEOUT_MS = 5000;

const defaultLookup = createHostResolver({ timeoutMs: REGISTRATION_LOOKUP_TIMEOUT_MS });

/**
 * The system resolver (getaddrinfo: /etc/hosts, search domains, mDNS as the host has them), for
 * names an operator chose rather than a tenant: an a2a-upstream agent is registered through the
 * admin API, and may well be `ledger.agents` in the cluster's search domains or a hosts-file
 * alias. Tenants' webhook names go to DNS directly (resolve-host.ts), because getaddrinfo runs on
 * libuv's four pool threads and a tenant's black-holed zone could hold them all.
 */
export const systemLookup: LookupFn = async (hostname) => lookup(hostname, { all: true });

export class UrlRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlRefusedError';
  }
}

function parseCidrs(cidrs: readonly string[]): Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  return cidrs.map((c) =>
    c.includes('/') ? ipaddr.parseCIDR(c) : ipaddr.parseCIDR(`${c}/${c.includes(':') ? 128 : 32}`),
  );
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** True when `address` may be contacted under `policy`. */
export function isAllowedAddress(address: string, policy: UrlPolicy): boolean {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  for (const [net, bits] of parseCidrs(policy.allowCidrs)) {
    if (net.kind() === ip.kind() && ip.match(net, bits)) return true;
  }
  // ipaddr.js calls all of IPv6 outside its named special ranges unicast, including the
  // deprecated IPv4-compatible ::a.b.c.d (::/96) and unassigned space; only global unicast
  // (2000::/3) is public.
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return false;
  return ip.range() === 'unicast';
}

/**
 * Validates a webhook URL and every address its host resolves to; throws UrlRefusedError, whose
 * message names the URL as `subject` (an upstream agent's card URL obeys the same rules). With
 * `acceptUnresolved`, a host that does not resolve now (no such name, or DNS not answering within
 * the lookup's budget) passes with no addresses: a push config is used later, when every
 * connection is checked again (guarded-agent.ts), and a registration should not fail because DNS
 * is away for a moment or the gateway's network has none.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: UrlPolicy,
  lookup: LookupFn = defaultLookup,
  subject = 'webhook',
  { acceptUnresolved = false }: { acceptUnresolved?: boolean } = {},
): Promise<string[]> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError(`${subject} url is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    throw new UrlRefusedError(`${subject} url scheme ${url.protocol} is not allowed`);
  }
  if (url.username || url.password) throw new UrlRefusedError(`${subject} url must not carry credentials`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [host]
    : (await lookup(host).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0 && !acceptUnresolved)
    throw new UrlRefusedError(`${subject} host ${host} does not resolve`);
  for (const address of addresses) {
    if (!isAllowedAddress(address, policy)) {
      throw new UrlRefusedError(
        // Not the address itself: a tenant must not learn how internal names resolve.
        `${subject} host ${host} resolves to a non-public address (loopback, private, link-local or metadata ranges are refused)`,
      );
    }
  }
  return addresses;
}
