/**
 * A guarded write matched no row: the task moved on (another version, state or lease owner) or does
 * not exist. Never a silent overwrite (ARCHITECTURE.md §3 rule 2); the caller re-reads and decides.
 */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  readonly tenantId: string;
  readonly taskId: string;
  readonly expectedVersion: number | 'any';

  constructor(tenantId: string, taskId: string, expectedVersion: number | 'any') {
    super(
      expectedVersion === 'any'
        ? `task ${taskId} no longer satisfies the change's guard`
        : `task ${taskId} changed since version ${expectedVersion} (or its guard no longer holds)`,
    );
    this.tenantId = tenantId;
    this.taskId = taskId;
    this.expectedVersion = expectedVersion;
  }
}

export function isConflict(e: unknown): e is ConflictError {
  return e instanceof ConflictError;
}

/**
 * A `pageToken` this store did not issue (or garbled in transit). The engine maps it to
 * InvalidParams (spec digest §7.4 rule 22: tokens are opaque, so a bad one is bad input).
 */
export class InvalidPageTokenError extends Error {
  override readonly name = 'InvalidPageTokenError';

  constructor(options?: { cause?: unknown }) {
    super('invalid pageToken', options);
  }
}

export function isInvalidPageToken(e: unknown): e is InvalidPageTokenError {
  return e instanceof InvalidPageTokenError;
}

/**
 * A change that was to register a webhook (ChangeTaskInput.registerPushConfig) found the task at
 * its limit of push configs; nothing was changed. The engine maps it to InvalidParams.
 */
export class PushConfigLimitError extends Error {
  override readonly name = 'PushConfigLimitError';
  readonly taskId: string;
  readonly max: number;

  constructor(taskId: string, max: number) {
    super(`task ${taskId} already has ${max} push notification configs`);
    this.taskId = taskId;
    this.max = max;
  }
}

export function isPushConfigLimit(e: unknown): e is PushConfigLimitError {
  return e instanceof PushConfigLimitError;
}

/**
 * A push config given back with a secret as reads show it (`********`) where no stored secret can
 * stand for it: the config is new, or its URL changed. Keeping the stored secret there would send
 * one webhook's credentials to another URL (a tenant admin who can read every config, redacted,
 * could point a user's config at a host of theirs). Nothing was changed; the engine maps it to
 * InvalidParams naming `field`.
 */
export class RedactedSecretError extends Error {
  override readonly name = 'RedactedSecretError';
  readonly field: 'token' | 'authentication.credentials';

  constructor(field: 'token' | 'authentication.credentials') {
    super(
      `push config ${field} is the redaction placeholder; it keeps the stored secret only for an ` +
        'existing config whose url is unchanged: give the secret itself',
    );
    this.field = field;
  }
}

export function isRedactedSecret(e: unknown): e is RedactedSecretError {
  return e instanceof RedactedSecretError;
}
