import type { StreamRegistry } from '../sse/stream-registry.ts';
import { apiKeyCredentialId, apiKeyIdOf } from './authenticator.ts';

export interface RecheckDeps {
  streams: StreamRegistry;
  /** The key ids among these that still authenticate (PostgresAdminStore.liveApiKeyIds). */
  liveApiKeyIds: (keyIds: string[]) => Promise<Set<string>>;
  /** Whether the tenant is enabled (TenantStatus.isActive, after its cache was cleared). */
  isTenantActive: (tenantId: string) => Promise<boolean>;
  /** Told when a late-registering stream's credential could not be checked (it stays open). */
  lateCheckFailed?: (err: unknown) => void;
}

/**
 * After the revocation channel resubscribed (it may have missed announcements while Redis was
 * away), the open streams' credentials are checked against the store: a stream of a key revoked
 * meanwhile, or of a tenant disabled meanwhile, ends as an announcement would have ended it.
 * One query for the keys, one cached lookup per tenant. JWT streams are checked by tenant only
 * (a token cannot be revoked here). Returns how many streams it ended.
 */
export async function recheckOpenStreams({
  streams,
  liveApiKeyIds,
  isTenantActive,
  lateCheckFailed,
}: RecheckDeps): Promise<number> {
  // Streams whose requests were authenticated before now but register after the owners are read
  // below are checked one by one as they register.
  streams.resynced(async ({ tenantId, credentialId }) => {
    if (!(await isTenantActive(tenantId))) return 'tenant disabled';
    const keyId = apiKeyIdOf(credentialId);
    if (keyId !== undefined && !(await liveApiKeyIds([keyId])).has(keyId)) return 'credential revoked';
    return undefined;
  }, lateCheckFailed);
  let closed = 0;
  for (const tenantId of streams.owners().tenantIds) {
    if (!(await isTenantActive(tenantId))) closed += streams.closeOwnedBy({ tenantId }, 'tenant disabled');
  }
  // The keys of the streams open or still opening (a disabled tenant's too, until their closed
  // streams release their slots: asking about them changes nothing).
  const { credentialIds } = streams.owners();
  const keyIds = [...credentialIds].flatMap((c) => apiKeyIdOf(c) ?? []);
  if (keyIds.length === 0) return closed;
  const live = await liveApiKeyIds(keyIds);
  for (const keyId of keyIds) {
    if (!live.has(keyId))
      closed += streams.closeOwnedBy({ credentialId: apiKeyCredentialId(keyId) }, 'credential revoked');
  }
  return closed;
}
