import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import type { LookupFn } from './url-policy.ts';

export interface HostResolverOptions {
  /** Budget of one lookup (A and AAAA together), in ms: its queries are cancelled then. */
  timeoutMs: number;
  /** DNS servers, e.g. ['127.0.0.1:5353'] in tests. Default: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** Wait for one answer before a query is sent again, in ms. Default 2000. */
  queryTimeoutMs?: number;
  /** Sends of one query per server. Default 2 (one lost UDP packet does not fail a lookup). */
  tries?: number;
}

/**
 * RFC 6761 §6.3: `localhost` and names under it are loopback, never asked of DNS. IPv4 only, so
 * an allow-list of 127.0.0.0/8 admits it (a host is refused when any of its addresses is not
 * allowed); a webhook for IPv6 loopback writes [::1].
 */
const LOOPBACK = ['127.0.0.1'];
const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;
/** Answers meaning the name has no address of that family (not a failure to ask). */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * A host name lookup for the SSRF checks of webhooks (names tenants choose) that cannot starve
 * the process (a2a-upstream agents, named by operators, use url-policy.ts's systemLookup). `dns.lookup` is getaddrinfo on libuv's thread pool (4 threads, shared with fs and
 * crypto), and a call cannot be abandoned: a few names in a zone whose servers never answer hold
 * every thread for the resolver's whole timeout, and every other tenant's lookup queues behind
 * them. This asks DNS directly through c-ares (node:dns `Resolver`), which waits on sockets, not
 * threads; each lookup has a resolver of its own so that cancel() (at `timeoutMs`, or when
 * `signal` aborts) ends just its queries.
 *
 * Unlike getaddrinfo it does not read /etc/hosts, nor apply resolv.conf's search domains (a name
 * is looked up as written, so use fully qualified names). `localhost` names map to 127.0.0.1
 * and literal IPs to themselves, without a query; the caller's policy judges them.
 * Addresses come IPv4 first. When one family's query fails but the other answers, the answer is
 * used: every address returned is checked by the caller, so an unanswered family hides nothing
 * that a connection could reach.
 */
export function createHostResolver(options: HostResolverOptions): LookupFn {
  const { timeoutMs, servers, queryTimeoutMs = 2000, tries = 2 } = options;
  return async (hostname, signal) => {
    const host = hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) !== 0) return [{ address: host }];
    if (LOCALHOST.test(host)) return LOOPBACK.map((address) => ({ address }));
    // maxTimeout: c-ares would stretch a retry's wait by backoff, and cap any wait at ~5 s.
    const resolver = new Resolver({ timeout: queryTimeoutMs, maxTimeout: queryTimeoutMs, tries });
    if (servers) resolver.setServers(servers);
    const deadline = AbortSignal.timeout(timeoutMs);
    const stop = signal ? AbortSignal.any([deadline, signal]) : deadline;
    const ended = () =>
      signal?.aborted
        ? dnsError('ECANCELLED', `DNS lookup of ${host} cancelled`)
        : dnsError('ETIMEOUT', `DNS lookup of ${host} timed out after ${timeoutMs} ms`);
    if (stop.aborted) throw ended();
    const cancel = () => resolver.cancel();
    stop.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      // Cancelled midway, one family may have answered: the attempt is over all the same.
      if (stop.aborted) throw ended();
      const addresses = [v4, v6].flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      if (addresses.length > 0) return addresses.map((address) => ({ address }));
      // Neither family has an address: "no such name" when both say so, else the real failure.
      const failures = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      const real = failures.find((e) => !NO_ADDRESS.has((e as NodeJS.ErrnoException).code ?? ''));
      throw real ?? dnsError('ENOTFOUND', `host ${host} does not resolve`);
    } finally {
      stop.removeEventListener('abort', cancel);
    }
  };
}

function dnsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}
