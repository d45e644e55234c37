import { describe, expect, it } from 'vitest';
import { formatTimestamp, parseTimestamp } from '../src/index.ts';

describe('§1 google.protobuf.Timestamp', () => {
  it.each([
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.5Z', '2026-01-01T00:00:00.500Z'],
    ['2026-01-01T00:00:00.123456789Z', '2026-01-01T00:00:00.123Z'],
    ['2026-01-01T02:30:00+02:30', '2026-01-01T00:00:00.000Z'],
    ['2025-12-31T23:00:00-01:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01t00:00:00z', '2026-01-01T00:00:00.000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
  ])('parses %s as %s', (input, expected) => {
    const date = parseTimestamp(input);
    expect(date).toBeInstanceOf(Date);
    expect(formatTimestamp(date as Date)).toBe(expected);
  });

  it.each([
    '',
    'now',
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-01-01 00:00:00Z',
    '2026-1-1T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00+25:00',
    '0000-01-01T00:00:00Z',
    '+002026-01-01T00:00:00Z',
  ])('rejects %j', (input) => {
    expect(parseTimestamp(input)).toBeUndefined();
  });

  it('formats with millisecond precision and Z', () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T03:04:05.006Z');
  });

  it('refuses an invalid Date', () =>
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError));
});
