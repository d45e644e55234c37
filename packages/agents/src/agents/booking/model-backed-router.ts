import { Role, type Message } from '@switchyard/protocol';
import { textOf } from '../shared/message-text.ts';
import { isTravellerCount, type BookingIntent, type BookingRouter } from './booking-router.ts';
import { RuleBasedRouter } from './rule-based-router.ts';

/** Any LLM client's text completion: prompt in, the model's text out. */
export type CompleteFn = (prompt: string) => Promise<string>;

export interface ModelBackedRouterOptions {
  complete: CompleteFn;
  /** Used when the model fails or answers something that is not a valid intent. Default: RuleBasedRouter. */
  fallback?: BookingRouter;
  /** Told why a message fell back (the agent logs it): a silent fallback would hide a broken model. */
  onFallback?: (
    reason: 'completion-failed' | 'malformed-output',
    detail: { error?: unknown; output?: string },
  ) => void;
}

/**
 * Asks a language model to classify the message as JSON. Model output is untrusted text, so it is
 * parsed and checked field by field; anything else (or a failed call) falls back to the rules, so
 * the agent keeps working when the model misbehaves or is down.
 */
export class ModelBackedRouter implements BookingRouter {
  #complete: CompleteFn;
  #fallback: BookingRouter;
  #onFallback: NonNullable<ModelBackedRouterOptions['onFallback']>;

  constructor(options: ModelBackedRouterOptions) {
    this.#complete = options.complete;
    this.#fallback = options.fallback ?? new RuleBasedRouter();
    this.#onFallback = options.onFallback ?? (() => undefined);
  }

  async route(text: string, history: Message[]): Promise<BookingIntent> {
    let output: string;
    try {
      output = await this.#complete(bookingPrompt(text, history));
    } catch (error) {
      this.#onFallback('completion-failed', { error });
      return this.#fallback.route(text, history);
    }
    const intent = parseIntent(output);
    if (intent !== undefined) return intent;
    this.#onFallback('malformed-output', { output });
    return this.#fallback.route(text, history);
  }
}

export function bookingPrompt(text: string, history: Message[]): string {
  const earlier = history.map(
    (message) => `${message.role === Role.USER ? 'user' : 'agent'}: ${textOf(message)}`,
  );
  return [
    'You route messages for a travel booking agent that books flights and hotels.',
    'Answer with ONE JSON object and nothing else:',
    '{"kind":"greeting"|"thanks"|"capabilities"|"book"|"unknown","type":"flight"|"hotel","destination":string,"travellers":integer|null}',
    '"type", "destination" and "travellers" only for kind "book". If the conversation so far asked how many',
    'travellers and the new message answers it, return the complete "book" intent from the conversation.',
    'Use null for travellers when nobody said how many.',
    earlier.length > 0 ? `Conversation so far:\n${earlier.join('\n')}` : 'Conversation so far: (none)',
    `New message: ${text}`,
  ].join('\n');
}

/** The model's JSON, tolerating a Markdown code fence around it; undefined when it is not a valid intent. */
export function parseIntent(output: string): BookingIntent | undefined {
  const start = output.indexOf('{');
  const end = output.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(output.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = new Map(Object.entries(value));
  const kind = fields.get('kind');
  if (kind === 'greeting' || kind === 'thanks' || kind === 'capabilities' || kind === 'unknown')
    return { kind };
  if (kind !== 'book') return undefined;
  const type = fields.get('type');
  const destination = fields.get('destination');
  const travellers = fields.get('travellers') ?? undefined;
  if (
    (type !== 'flight' && type !== 'hotel') ||
    typeof destination !== 'string' ||
    destination.trim() === ''
  ) {
    return undefined;
  }
  if (travellers === undefined) return { kind, type, destination: destination.trim() };
  return isTravellerCount(travellers)
    ? { kind, type, destination: destination.trim(), travellers }
    : undefined;
}
