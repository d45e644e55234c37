import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part, type SendMessageResponse, type Task } from '@switchyard/protocol';

/** A client message with fresh ids. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: Role.USER, parts: [{ text }], ...extra };
}

export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((p) => p.text ?? '').join('');
}

/** The task of a SendMessage reply; fails the test when the reply is a Message. */
export function taskOf(response: SendMessageResponse): Task {
  if (!response.task) throw new Error(`expected a task, got ${JSON.stringify(response)}`);
  return response.task;
}
