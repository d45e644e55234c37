import { afterEach, describe, expect, it, vi } from 'vitest';
import { atExpiry } from '../src/sse/credential-expiry.ts';

// Found in review: a stream's expiry timer was set only when the credential expired within Node's
// longest timer (about 24.8 days), so a stream opened with a key valid for 30 days outlived it.
afterEach(() => {
  vi.useRealTimers();
});

const DAY = 24 * 3600 * 1000;

describe('atExpiry', () => {
  it('fires at an expiry past the longest timer, not before', () => {
    vi.useFakeTimers();
    const expired = vi.fn();
    atExpiry(Date.now() + 30 * DAY, expired);
    vi.advanceTimersByTime(30 * DAY - 1000);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(expired).toHaveBeenCalledOnce();
  });

  it('is cancelled with what it returns', () => {
    vi.useFakeTimers();
    const expired = vi.fn();
    const cancel = atExpiry(Date.now() + 30 * DAY, expired);
    vi.advanceTimersByTime(25 * DAY);
    cancel();
    vi.advanceTimersByTime(10 * DAY);
    expect(expired).not.toHaveBeenCalled();
  });
});
