import net, { type LookupFunction } from 'node:net';
import { createHostResolver } from './resolve-host.ts';
import { isAllowedAddress, UrlRefusedError, type LookupFn, type UrlPolicy } from './url-policy.ts';
import { Agent, buildConnector } from 'undici';

export interface GuardedAgentOptions {
  policy: UrlPolicy;
  /** Connect timeout in ms (the whole attempt has its own, longer or equal, timeout). */
  connectTimeoutMs: number;
  /**
   * Resolves a host name; by default DNS through c-ares with the connect timeout as its budget
   * (resolve-host.ts: not dns.lookup, whose calls hold libuv's thread pool). The upstream
   * executor passes the system resolver (systemLookup: operators' names, hosts file included);
   * tests inject one to simulate rebinding, or to point at a DNS server of their own.
   */
  resolve?: LookupFn;
}

/**
 * How long an idle connection to a receiver is kept for reuse, in ms, whatever the receiver's
 * `Keep-Alive: timeout=` says (undici would honour up to 600 s). Webhooks go to hosts a tenant
 * chooses: one using many names that each ask for a long keep-alive would otherwise hold an idle
 * socket per name for minutes, and run the process out of file descriptors for every tenant. A few
 * seconds still carries a burst of deliveries to one receiver on one connection. Idle sockets are
 * thus at most the connections opened in the last few seconds; undici has no cap on sockets across
 * origins that fits (`maxOrigins` refuses a new origin outright, failing an innocent delivery, and
 * idle clients count toward it), and sockets in use are bounded by the callers' concurrency.
 */
export const KEEP_ALIVE_MS = 4000;

/**
 * The SSRF guard at connect time, shared by webhook delivery and the upstream executor (digest §8, ARCHITECTURE.md §7). A URL was checked when it was
 * registered, but its host may resolve elsewhere now (DNS rebinding), so the check runs again on
 * the addresses the socket actually connects to: a host name goes through a lookup that refuses the
 * whole host if any address is not allowed, and a literal IP (which net.connect never looks up) is
 * checked before connecting. The refusal surfaces as the request's error: no byte is sent.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { policy } = options;
  const resolve = options.resolve ?? createHostResolver({ timeoutMs: options.connectTimeoutMs });
  const lookup = guardedLookup(policy, resolve);
  const base = buildConnector({ lookup, timeout: options.connectTimeoutMs });
  const connect: buildConnector.connector = (target, callback) => {
    if (net.isIP(target.hostname) !== 0 && !isAllowedAddress(target.hostname, policy)) {
      callback(
        new UrlRefusedError(`address ${target.hostname} is not public and not in the allow-list`),
        null,
      );
      return;
    }
    base(target, callback);
  };
  return new Agent({
    connect,
    connectTimeout: options.connectTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
  });
}

function guardedLookup(policy: UrlPolicy, resolve: LookupFn): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (found) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const addresses = found
          .map((a) => ({ address: a.address, family: net.isIP(a.address) }))
          .filter((a) => a.family !== 0 && (wanted === 0 || a.family === wanted));
        const first = addresses[0];
        if (!first) {
          callback(
            Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }),
            '',
            4,
          );
          return;
        }
        // Refuse the host outright rather than skip bad addresses: a name that resolves to a
        // private address at all is the rebinding signature, and registration applies the same rule.
        const refused = addresses.find((a) => !isAllowedAddress(a.address, policy));
        if (refused) {
          callback(
            new UrlRefusedError(
              `host ${hostname} resolves to ${refused.address}, which is not public and not in the allow-list`,
            ),
            '',
            4,
          );
          return;
        }
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), '', 4),
    );
  };
}
