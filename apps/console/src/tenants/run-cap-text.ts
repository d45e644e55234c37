import { badRequest } from '../http/http-error.ts';

/** The admin API's bound on a tenant's own cap (apps/gateway admin-schemas.ts). */
const MAX_RUN_CAP = 1_000_000;

/**
 * A run cap as operators write it, the CLI's words (`script/switchyard admin tenants cap`):
 * `default` follows the workers' TENANT_MAX_RUNNING (null), `none` is no cap (0), N is at most N.
 */
export function parseRunCap(text: string): number | null {
  const value = text.trim().toLowerCase();
  if (value === 'default') return null;
  if (value === 'none') return 0;
  if (/^\d{1,7}$/.test(value)) {
    const n = Number(value);
    if (n >= 1 && n <= MAX_RUN_CAP) return n;
  }
  throw badRequest(
    `cap must be default, none or a number of runs from 1 to ${MAX_RUN_CAP.toLocaleString('en-US')}`,
  );
}

/** A JSON body's maxRunning, as the admin API takes it: null, 0 or a positive integer. */
export function runCapOfJson(body: unknown): number | null {
  const value =
    typeof body === 'object' && body !== null && 'maxRunning' in body
      ? (body as { maxRunning: unknown }).maxRunning
      : undefined;
  if (value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_RUN_CAP)
    return value;
  throw badRequest(
    `maxRunning must be null (the fleet's default), 0 (no cap) or an integer up to ${MAX_RUN_CAP}`,
  );
}

/** The form's value for a stored cap. */
export function runCapText(maxRunning: number | null): string {
  return maxRunning === null ? 'default' : maxRunning === 0 ? 'none' : String(maxRunning);
}

/** What a stored cap means, for people. */
export function runCapLabel(maxRunning: number | null): string {
  if (maxRunning === null) return "the fleet's TENANT_MAX_RUNNING";
  if (maxRunning === 0) return 'no cap';
  return `at most ${maxRunning.toLocaleString('en-US')} run${maxRunning === 1 ? '' : 's'} at once`;
}
