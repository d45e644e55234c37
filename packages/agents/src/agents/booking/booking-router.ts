import type { Message } from '@switchyard/protocol';

export type BookingType = 'flight' | 'hotel';

/** What one client message asks for. */
export type BookingIntent =
  | { kind: 'greeting' }
  | { kind: 'thanks' }
  | { kind: 'capabilities' }
  /** `travellers` is absent when neither the message nor the earlier ones in the task give it. */
  | { kind: 'book'; type: BookingType; destination: string; travellers?: number }
  | { kind: 'unknown' };

/**
 * Decides what a message asks for. `history` holds the task's earlier messages (empty for the
 * first message of a task), so an answer like "2" to "How many travellers?" can be read as the
 * booking it completes: the router returns the full `book` intent, merged from history.
 */
export interface BookingRouter {
  route(text: string, history: Message[]): Promise<BookingIntent>;
}

/** A party of more than this is a group booking, which this agent does not handle. */
export const MAX_TRAVELLERS = 20;

export function isTravellerCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TRAVELLERS;
}
