import type { Timestamp } from './types/common.ts';

// RFC 3339 date-time (section 5.6): full-date "T" full-time, fraction optional, "Z" or offset.
// Lowercase t/z are allowed by RFC 3339 section 5.6's note. Years 0001-9999 as in google.protobuf.Timestamp.
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

export interface ParseTimestampOptions {
  /**
   * What a fraction finer than a millisecond becomes: `truncate` (the default) drops it, `ceil`
   * moves up to the next millisecond. Timestamps are shown at millisecond precision, truncated
   * (formatTimestamp), so a lower bound given finer (`statusTimestampAfter` ≥ 58.5314) keeps
   * exactly the times shown at or after it when it is rounded up (≥ 58.532), not down (58.531
   * would keep a time shown as 58.531, before the bound).
   */
  subMillisecond?: 'truncate' | 'ceil';
}

/**
 * Parses an RFC 3339 timestamp (digest §1). Returns undefined for anything else, including
 * impossible dates (`2026-02-30`) and leap seconds, which `Date` cannot hold. Fractions finer
 * than a millisecond are truncated, or rounded up with `subMillisecond: 'ceil'`.
 */
export function parseTimestamp(value: string, options: ParseTimestampOptions = {}): Date | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  if (sign !== undefined && (Number(oh) > 23 || Number(om) > 59)) return undefined;
  const ms = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s), ms);
  const offsetMinutes = sign === undefined ? 0 : (sign === '+' ? 1 : -1) * (Number(oh) * 60 + Number(om));
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear undoes that.
  const date = new Date(utc);
  date.setUTCFullYear(year);
  const finer = options.subMillisecond === 'ceil' && /[1-9]/.test(frac?.slice(3) ?? '') ? 1 : 0;
  return new Date(date.getTime() - offsetMinutes * 60_000 + finer);
}

/** Formats as ProtoJSON wants it: UTC, `Z`, millisecond precision (`YYYY-MM-DDTHH:mm:ss.sssZ`). */
export function formatTimestamp(date: Date): Timestamp {
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid Date');
  return date.toISOString();
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
