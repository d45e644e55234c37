import type { AgentContext } from '../../agent.ts';
import { choiceSetting, intSetting } from '../shared/settings.ts';

export type ProgressMode = 'artifact' | 'status' | 'both';

export interface SlowSettings {
  /** Total wait before the reply, in ms. Default 1500, at most one hour. */
  delayMs: number;
  /** Progress events spread over the delay. Default 0 (none), at most 1000. */
  steps: number;
  /**
   * What one step emits: a chunk of the 'progress' artifact (default, so `steps` N gives exactly N
   * events), a status update, or both.
   */
  progress: ProgressMode;
}

export const SLOW_DEFAULTS: SlowSettings = Object.freeze({ delayMs: 1500, steps: 0, progress: 'artifact' });

export function readSlowSettings(ctx: AgentContext): SlowSettings {
  const warn = (problem: object): void =>
    ctx.log.warn(problem, 'invalid slow agent setting; using the default');
  return {
    delayMs: intSetting(ctx.settings, 'delayMs', { fallback: SLOW_DEFAULTS.delayMs, max: 3_600_000 }, warn),
    steps: intSetting(ctx.settings, 'steps', { fallback: SLOW_DEFAULTS.steps, max: 1000 }, warn),
    progress: choiceSetting(
      ctx.settings,
      'progress',
      ['artifact', 'status', 'both'],
      SLOW_DEFAULTS.progress,
      warn,
    ),
  };
}
