import { createHash } from 'node:crypto';
import type { ArtifactChunk, MessageInput } from '../../agent.ts';
import type { BookingType } from './booking-router.ts';

export const TRAVELLERS_QUESTION = 'How many travellers?';

export interface Booking {
  type: BookingType;
  destination: string;
  travellers: number;
}

/**
 * Derived from the task id and the booking, not random: a re-run after a crash must confirm the
 * same booking with the same code (at-least-once execution, agent.ts).
 */
export function confirmationCode(taskId: string, booking: Booking): string {
  const digest = createHash('sha256')
    .update(`${taskId}\n${booking.type}\n${booking.destination}\n${booking.travellers}`)
    .digest('hex');
  return `SY-${digest.slice(0, 8).toUpperCase()}`;
}

export function bookingArtifact(booking: Booking, confirmation: string): ArtifactChunk {
  return {
    artifactId: 'booking',
    name: 'booking',
    parts: [{ data: { ...booking, confirmation }, mediaType: 'application/json' }],
    append: false,
    lastChunk: true,
  };
}

export function bookingConfirmedMessage(booking: Booking, confirmation: string): MessageInput {
  const what =
    booking.type === 'flight' ? `a flight to ${booking.destination}` : `a hotel in ${booking.destination}`;
  const who = booking.travellers === 1 ? '1 traveller' : `${booking.travellers} travellers`;
  return `Booked ${what} for ${who}. Confirmation ${confirmation}.`;
}

export const CHAT_REPLIES = {
  greeting: 'Hello! I can book flights and hotels. Try "book a flight to Lisbon".',
  thanks: "You're welcome. Anything else to book?",
  capabilities:
    'I book flights and hotels: say "book a flight to <city>" or "book a hotel in <city>", ' +
    'optionally "for 2 travellers". I will ask how many travellers if you do not say.',
  unknown: 'Sorry, I only book flights and hotels. Try "book a hotel in Rome for 2 travellers".',
} as const;
