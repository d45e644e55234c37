import type { Artifact, Message, Part, Task, TaskState } from '@switchyard/protocol';
import type { StreamEvent } from '../transport/transport.ts';

/** `TASK_STATE_INPUT_REQUIRED` → `INPUT_REQUIRED`. */
export function stateName(state: TaskState | string | undefined): string {
  return (state ?? 'UNKNOWN').replace(/^TASK_STATE_/, '');
}

/** One part as a line of text: text as is, data as JSON, files as a short description. */
export function partText(part: Part): string {
  if (part.text !== undefined) return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data);
  const label = [part.mediaType, part.filename].filter(Boolean).join(', ');
  if (part.url !== undefined) return `[file ${part.url}${label ? ` (${label})` : ''}]`;
  if (part.raw !== undefined)
    return `[${Math.floor((part.raw.length * 3) / 4)} bytes${label ? `, ${label}` : ''}]`;
  return '[empty part]';
}

export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map(partText).join('\n');
}

/** A task for people: identity and state, the agent's status message, then each artifact. */
export function renderTask(task: Task): string[] {
  const lines = [`Task ${task.id}: ${stateName(task.status.state)}`];
  if (task.contextId) lines.push(`  context  ${task.contextId}`);
  if (task.status.timestamp) lines.push(`  updated  ${task.status.timestamp}`);
  const said = partsText(task.status.message?.parts);
  if (said) lines.push(...prefixed('  agent    ', said));
  for (const artifact of task.artifacts ?? []) lines.push(...renderArtifact(artifact));
  return lines;
}

export function renderArtifact(artifact: Artifact): string[] {
  const title =
    artifact.name && artifact.name !== artifact.artifactId
      ? `${artifact.name} (${artifact.artifactId})`
      : artifact.artifactId;
  const count = artifact.parts.length;
  return [
    `Artifact ${title}, ${count} part${count === 1 ? '' : 's'}:`,
    ...artifact.parts.flatMap((p) => prefixed('  ', partText(p))),
  ];
}

export function renderMessage(message: Message): string[] {
  return [
    `Message from the agent${message.contextId ? ` (context ${message.contextId})` : ''}:`,
    ...prefixed('  ', partsText(message.parts)),
  ];
}

/** One line per stream event (the CLI's `tail`). */
export function renderEvent(event: StreamEvent): string {
  const { response } = event;
  const id = event.id !== undefined ? `#${event.id} ` : '';
  if (response.task) {
    const said = partsText(response.task.status.message?.parts);
    return `${id}task ${stateName(response.task.status.state)}${said ? `: ${oneLine(said)}` : ''}`;
  }
  if (response.statusUpdate) {
    const said = partsText(response.statusUpdate.status.message?.parts);
    return `${id}status ${stateName(response.statusUpdate.status.state)}${said ? `: ${oneLine(said)}` : ''}`;
  }
  if (response.artifactUpdate) {
    const { artifact, append, lastChunk } = response.artifactUpdate;
    const flags = [append ? 'append' : 'new', ...(lastChunk ? ['last chunk'] : [])].join(', ');
    return `${id}artifact ${artifact.name ?? artifact.artifactId} (${flags}): ${oneLine(partsText(artifact.parts))}`;
  }
  if (response.message) return `${id}message: ${oneLine(partsText(response.message.parts))}`;
  return `${id}(unknown event)`;
}

export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function prefixed(prefix: string, text: string): string[] {
  const pad = ' '.repeat(prefix.length);
  return text.split('\n').map((line, i) => `${i === 0 ? prefix : pad}${line}`);
}
