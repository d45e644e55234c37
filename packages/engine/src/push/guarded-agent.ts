import { lookup as dnsLookup } from 'node:dns/promises';
import net, { type LookupFunction } from 'node:net';
import { isAllowedAddress, UrlRefusedError, type LookupFn, type UrlPolicy } from './url-policy.ts';
import { Agent, buildConnector } from 'undici';

export interface GuardedAgentOptions {
  policy: UrlPolicy;
  /** Connect timeout in ms (the whole attempt has its own, longer or equal, timeout). */
  connectTimeoutMs: number;
  /** Resolves a host name; defaults to the system resolver. Tests inject one to simulate rebinding. */
  resolve?: LookupFn;
}

const systemResolve: LookupFn = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The SSRF guard at connect time, shared by webhook delivery and the upstream executor (digest §8, ARCHITECTURE.md §7). A URL was checked when it was
 * registered, but its host may resolve elsewhere now (DNS rebinding), so the check runs again on
 * the addresses the socket actually connects to: a host name goes through a lookup that refuses the
 * whole host if any address is not allowed, and a literal IP (which net.connect never looks up) is
 * checked before connecting. The refusal surfaces as the request's error: no byte is sent.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { policy } = options;
  const lookup = guardedLookup(policy, options.resolve ?? systemResolve);
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
  return new Agent({ connect, connectTimeout: options.connectTimeoutMs });
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
