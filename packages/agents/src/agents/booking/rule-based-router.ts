import type { Message } from '@switchyard/protocol';
import { textOf, userMessages } from '../shared/message-text.ts';
import {
  isTravellerCount,
  type BookingIntent,
  type BookingRouter,
  type BookingType,
} from './booking-router.ts';

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const COUNT = String.raw`(\d+|${Object.keys(NUMBER_WORDS).join('|')})`;
const PARTY = String.raw`(?:travell?ers?|people|persons?|adults?|guests?|passengers?|pax)`;

const BOOK = /\bbook\b.*?\b(flight|hotel)\b/i;
const DESTINATION = /\b(?:to|in|at)\s+(.+)$/i;
/** "for 2 travellers", "3 people", or a trailing "for 2". */
const PARTY_SIZE = new RegExp(String.raw`\b${COUNT}\s+${PARTY}\b|\bfor\s+${COUNT}\s*[.!?]*$`, 'i');
/** The party size at the end of a destination; a bare number only after "for" ("District 9" stays). */
const TRAILING_PARTY = new RegExp(
  String.raw`\s*,?\s*(?:\bfor\s+)?${COUNT}\s+${PARTY}\s*[.!?]*$|\s+for\s+${COUNT}\s*[.!?]*$`,
  'i',
);
const ANSWER_COUNT = new RegExp(String.raw`^\s*(?:we are\s+|we're\s+)?${COUNT}\b`, 'i');
const JUST_ME = /^\s*(?:just|only)\s+(?:me|myself)\b|^\s*me\s*$/i;

const GREETING = /^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b/i;
const THANKS = /\b(?:thanks|thank you|cheers)\b/i;
const CAPABILITIES = /\bwhat can you do\b|\bwhat do you do\b|\bhelp\b|\bcapabilit/i;

/**
 * The default router: keywords and regular expressions, deterministic and free. It is also the
 * fallback of the model-backed router.
 */
export class RuleBasedRouter implements BookingRouter {
  route(text: string, history: Message[]): Promise<BookingIntent> {
    return Promise.resolve(routeByRules(text, history));
  }
}

/**
 * The most of a message the rules read. A booking request is a sentence or two; the patterns
 * backtrack, and a long message must not hold the worker's event loop (its leases renew there).
 */
const MAX_ROUTED_CHARS = 2_000;

/**
 * Whitespace runs collapsed to one space, and at most MAX_ROUTED_CHARS: TRAILING_PARTY's
 * `\s*,?\s*` backtracks in cubic time over a run of spaces (2,000 of them took 3.7 s).
 */
function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, MAX_ROUTED_CHARS);
}

function routeByRules(raw: string, history: Message[]): BookingIntent {
  const text = normalized(raw);
  const booking = parseBooking(text);
  if (booking !== undefined) return booking;
  // Not a booking by itself: maybe it answers "How many travellers?" for the booking in history.
  const earlier = userMessages(history)
    .map((message) => parseBooking(normalized(textOf(message))))
    .find((intent) => intent !== undefined);
  const travellers = answerCount(text);
  if (earlier?.kind === 'book' && travellers !== undefined) return { ...earlier, travellers };
  if (earlier?.kind === 'book') return earlier;
  if (CAPABILITIES.test(text)) return { kind: 'capabilities' };
  if (THANKS.test(text)) return { kind: 'thanks' };
  if (GREETING.test(text)) return { kind: 'greeting' };
  return { kind: 'unknown' };
}

function parseBooking(text: string): BookingIntent | undefined {
  const book = BOOK.exec(text);
  if (book === null) return undefined;
  const type: BookingType = book[1]?.toLowerCase() === 'hotel' ? 'hotel' : 'flight';
  const rest = text.slice(book.index + book[0].length);
  const destination = DESTINATION.exec(rest)?.[1]
    ?.replace(TRAILING_PARTY, '')
    .replace(/[.!?]+$/, '')
    .trim();
  if (destination === undefined || destination === '') return undefined;
  const travellers = toCount(firstGroup(PARTY_SIZE.exec(text)));
  return travellers === undefined
    ? { kind: 'book', type, destination }
    : { kind: 'book', type, destination, travellers };
}

function answerCount(text: string): number | undefined {
  if (JUST_ME.test(text)) return 1;
  return toCount(firstGroup(ANSWER_COUNT.exec(text))) ?? toCount(firstGroup(PARTY_SIZE.exec(text)));
}

function firstGroup(match: RegExpExecArray | null): string | undefined {
  return match?.slice(1).find((group) => group !== undefined);
}

function toCount(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  const count = NUMBER_WORDS[word.toLowerCase()] ?? Number(word);
  return isTravellerCount(count) ? count : undefined;
}
