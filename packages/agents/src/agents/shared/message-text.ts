import { Role, type Message, type Part } from '@switchyard/protocol';

/** The text parts of a message, joined by newlines ('' when it has none). */
export function textOf(message: Message): string {
  return textParts(message.parts)
    .map((part) => part.text)
    .join('\n');
}

/** Only the parts that carry text, narrowed so callers can read `.text` without checks. */
export function textParts(parts: readonly Part[]): Array<Part & { text: string }> {
  return parts.filter((part): part is Part & { text: string } => typeof part.text === 'string');
}

/**
 * The client's messages in a task history. Whether the platform also stores the agent's status
 * messages in history is the engine's choice, so agents that read history filter by role.
 */
export function userMessages(history: readonly Message[]): Message[] {
  return history.filter((message) => message.role === Role.USER);
}

/**
 * True when this run answers a follow-up message (after INPUT_REQUIRED / AUTH_REQUIRED) rather than
 * the request that created the task: the task then holds more than one client message.
 */
export function isFollowUp(history: readonly Message[]): boolean {
  return userMessages(history).length > 1;
}
