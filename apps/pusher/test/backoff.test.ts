import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../src/backoff.ts';
import { retryAfterMs } from '@switchyard/protocol';

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

describe('retryAfterMs (RFC 9110 §10.2.3)', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  it.each([
    ['120', 120_000],
    ['0', 0],
    [' 5 ', 5_000],
    ['Thu, 03 Dec 2026 12:01:00 GMT', 60_000],
    ['Thu, 03 Dec 2026 11:00:00 GMT', 0],
  ])('%j waits %i ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });

  it.each([undefined, '', 'soon', '-5', '1.5'])('%j is no wait asked', (header) => {
    expect(retryAfterMs(header, now)).toBeUndefined();
  });
});
