import { partsText, roleLabel, stateBadge, timeTag } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';
import type { TimelineEntry } from './timeline-entry.ts';

const KIND_LABEL = {
  created: 'created',
  status: 'status',
  artifact: 'artifact',
  message: 'message',
  reply: 'reply',
  gap: 'note',
} as const;

/** One timeline line; `compact` (the threads view) clips long content harder. */
export function renderEntry(entry: TimelineEntry, { compact = false }: { compact?: boolean } = {}): SafeHtml {
  const text = entry.parts ? partsText(entry.parts, compact ? 240 : 4000) : '';
  return html`<li class="entry entry-${entry.kind}" data-key="${entry.key}"${entry.seq === undefined ? '' : html` data-seq="${entry.seq}"`}>
  ${timeTag(entry.at, 'clock')}
  <span class="entry-kind">${KIND_LABEL[entry.kind]}${entry.seq === undefined ? null : html` <span class="seq">#${entry.seq}</span>`}</span>
  <div class="entry-body">${entryTitle(entry)}${text ? html`<pre class="entry-text">${text}</pre>` : null}</div>
</li>`;
}

function entryTitle(entry: TimelineEntry): SafeHtml {
  switch (entry.kind) {
    case 'created':
      return html`<span class="entry-title">Task created ${entry.state ? stateBadge(entry.state) : null}</span>`;
    case 'status':
      return html`<span class="entry-title">State ${entry.state ? stateBadge(entry.state) : null}${entry.parts ? html` <span class="muted">with ${roleLabel(entry.role ?? 'ROLE_AGENT')} message</span>` : null}</span>`;
    case 'artifact': {
      const a = entry.artifact;
      const flags = [a?.append ? 'append' : 'new', a?.lastChunk ? 'last chunk' : null]
        .filter(Boolean)
        .join(', ');
      return html`<span class="entry-title">Artifact chunk <code>${a?.name ?? a?.artifactId ?? ''}</code> <span class="muted">(${flags})</span></span>`;
    }
    case 'message':
      return html`<span class="entry-title">Message from ${roleLabel(entry.role ?? 'ROLE_USER')}</span>`;
    case 'reply':
      return html`<span class="entry-title">Message reply from ${roleLabel(entry.role ?? 'ROLE_AGENT')}</span>`;
    case 'gap':
      return html`<span class="entry-title muted">${entry.note ?? ''}</span>`;
    default: {
      const never: never = entry.kind;
      return never;
    }
  }
}
