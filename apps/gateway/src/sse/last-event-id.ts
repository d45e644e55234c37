import type { Request } from 'express';
import { invalidParams } from '@switchyard/protocol';

/**
 * The resume point of a reconnecting SSE client: the `Last-Event-ID` header (set by EventSource)
 * or a `lastEventId` query parameter for clients that cannot set headers. Event ids are the task's
 * event sequence numbers, so anything but a non-negative integer is invalid: InvalidParams for a
 * subscription, and no resume point (`lenient`) for a send, which a header the client carried
 * over from elsewhere must not refuse.
 */
export function lastEventIdOf(req: Request, { lenient = false } = {}): number | undefined {
  const header = req.headers['last-event-id'];
  const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('lastEventId');
  const raw = (typeof header === 'string' && header.trim() !== '' ? header : (query ?? '')).trim();
  if (raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    if (lenient) return undefined;
    throw invalidParams('Last-Event-ID must be an event id this server sent', [
      { field: 'Last-Event-ID', description: 'must be a non-negative integer' },
    ]);
  }
  return Number(raw);
}
