/**
 * Readers for executor settings. Settings come from an agent registration (operator-supplied
 * JSON), so every value is checked here and a bad one falls back to the default instead of
 * throwing mid-task; the agent logs the fallback.
 */

export interface SettingProblem {
  key: string;
  value: unknown;
  used: unknown;
}

/** An integer in [0, max], or `fallback` (reporting the problem) when absent or invalid. */
export function intSetting(
  settings: Readonly<Record<string, unknown>>,
  key: string,
  limits: { fallback: number; max: number },
  onProblem: (problem: SettingProblem) => void,
): number {
  const { fallback, max } = limits;
  const value = settings[key];
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max) return value;
  onProblem({ key, value, used: fallback });
  return fallback;
}

/** One of `allowed`, or `fallback` (reporting the problem) when absent or not allowed. */
export function choiceSetting<T extends string>(
  settings: Readonly<Record<string, unknown>>,
  key: string,
  allowed: readonly T[],
  fallback: T,
  onProblem: (problem: SettingProblem) => void,
): T {
  const value = settings[key];
  if (value === undefined) return fallback;
  const match = allowed.find((choice) => choice === value);
  if (match !== undefined) return match;
  onProblem({ key, value, used: fallback });
  return fallback;
}
