/** The tenant id is already taken (createTenant is not idempotent; ensureTenant is). */
export class TenantExistsError extends Error {
  override readonly name = 'TenantExistsError';
  readonly tenantId: string;
  constructor(tenantId: string) {
    super(`tenant ${tenantId} already exists`);
    this.tenantId = tenantId;
  }
}

/**
 * A caller-provided API key is already registered to another tenant or principal. The message
 * names neither: the key's owner is not the caller's business.
 */
export class ApiKeyConflictError extends Error {
  override readonly name = 'ApiKeyConflictError';
  constructor() {
    super('this API key is already registered to another principal');
  }
}
