import type { Message, Part, TaskState } from '@switchyard/protocol';
import { html, type SafeHtml } from './html.ts';

/** Every time on the console is UTC, to the millisecond where order matters (ops compare logs). */
export function formatDateTime(d: Date): string {
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
}

export function formatClock(d: Date): string {
  return d.toISOString().slice(11, 23);
}

export function timeTag(d: Date, style: 'datetime' | 'clock' = 'datetime'): SafeHtml {
  const iso = d.toISOString();
  return html`<time datetime="${iso}" title="${iso}">${style === 'clock' ? formatClock(d) : formatDateTime(d)}</time>`;
}

/** A duration for people: 850 ms, 12.3 s, 4 min 05 s, 2 h 07 min, 3 d 4 h. */
export function formatAge(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** TASK_STATE_INPUT_REQUIRED → "input required". */
export function stateLabel(state: TaskState | string): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .replace(/_/g, ' ')
    .toLowerCase();
}

export function stateBadge(state: TaskState | string): SafeHtml {
  const slug = stateLabel(state).replace(/ /g, '-');
  return html`<span class="badge state-${slug}">${stateLabel(state)}</span>`;
}

/** First 8 characters of a uuid: enough to tell tasks apart on one screen. */
export function shortId(id: string): string {
  return id.length > 13 ? id.slice(0, 8) : id;
}

/** A readable preview of parts: text as is, data as JSON, files by name and size. */
export function partsText(parts: readonly Part[], max = 2000): string {
  const text = parts.map(partText).join('\n');
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

function partText(part: Part): string {
  if (part.text !== undefined) return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data);
  if (part.url !== undefined) return `[file ${part.filename ?? ''} ${part.url}]`.replace(/ {2}/, ' ');
  if (part.raw !== undefined)
    return `[file ${part.filename ?? 'inline'}, ${Math.floor((part.raw.length * 3) / 4)} bytes]`;
  return '';
}

export function messageText(message: Message | null | undefined, max = 2000): string {
  return message ? partsText(message.parts, max) : '';
}

/** ROLE_AGENT → "agent". */
export function roleLabel(role: string): string {
  return role.replace(/^ROLE_/, '').toLowerCase();
}
