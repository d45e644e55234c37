import type { AgentRecord } from './admin-store.ts';

/** What operators see in place of sealed credentials. */
export const MASKED_CREDENTIALS = '********';

/**
 * A registration as operators see it (admin API, console): credentials sealed in its settings (an
 * upstream agent's `sealedCredentials`) are shown as `credentials: "********"`, never as the
 * sealed blob. The one masking every operator view uses, whatever the executor.
 */
export function redactAgent<T extends Pick<AgentRecord, 'settings'>>(agent: T): T {
  if (agent.settings.sealedCredentials === undefined) return agent;
  const { sealedCredentials: _sealed, ...rest } = agent.settings;
  return { ...agent, settings: { ...rest, credentials: MASKED_CREDENTIALS } };
}
