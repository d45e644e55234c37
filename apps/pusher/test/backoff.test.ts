import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../src/backoff.ts';

const policy = { maxAttempts: 8, baseMs: 1000, maxMs: 300_000 };

describe('retryDelayMs (exponential backoff, full jitter)', () => {
  it('doubles the ceiling per attempt from the base', () => {
    const top = () => 0.999_999_9;
    expect([1, 2, 3, 4].map((a) => retryDelayMs(policy, a, top))).toEqual([999, 1999, 3999, 7999]);
  });

  it('caps the ceiling at the maximum, even for huge attempt counts', () => {
    expect(retryDelayMs(policy, 20, () => 0.5)).toBe(150_000);
    expect(retryDelayMs(policy, 5000, () => 0.5)).toBe(150_000);
  });

  it('spreads uniformly from zero to the ceiling', () => {
    expect(retryDelayMs(policy, 3, () => 0)).toBe(0);
    const samples = Array.from({ length: 200 }, () => retryDelayMs(policy, 3));
    expect(samples.every((d) => d >= 0 && d < 4000)).toBe(true);
    expect(new Set(samples).size).toBeGreaterThan(100);
  });
});
