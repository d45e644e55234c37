import { sql, type RawBuilder } from 'kysely';

/**
 * The receiver a webhook URL points at, as a pusher's per-host cap counts it: the URL's authority
 * without user info, lowercased (`hooks.example.com:8443`, `[::1]:9000`); '' for a URL without
 * one (registration refuses those). Computed in SQL both where a claim skips the hosts at their
 * cap and for each claimed row, so the two always agree; a JS URL parser would normalise default
 * ports and IDNs where this does not. A default port written out therefore counts as another host.
 */
export function receiverHostOf(url: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`coalesce(lower(substring(${url} from '^[^:/?#]+://(?:[^/?#]*@)?([^/?#]*)')), '')`;
}
